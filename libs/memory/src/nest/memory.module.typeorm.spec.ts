import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MemoryModule, MemoryService, userMessage } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';

const schemas = new TestSchemas('nest_typeorm');
afterAll(() => schemas.cleanup());

describe('MemoryModule on the app’s own TypeORM DataSource', () => {
  it('stores sessions through the injected DataSource, which stays its owner’s to close', async () => {
    const table = schemas.nextTable();

    @Injectable()
    class Notes {
      constructor(private readonly memory: MemoryService) {}
      async note(text: string) {
        const session = await this.memory.session('notes');
        await session.save([userMessage(text)]);
        return (await session.retrieve()).length;
      }
    }

    @Module({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url: schemas.url, synchronize: false }),
        MemoryModule.forRootAsync({
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => ({
            backend: postgresBackend({ dataSource, table }),
          }),
        }),
      ],
      providers: [Notes],
    })
    class AppModule {}

    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = await moduleRef.init();
    expect(moduleRef.get(MemoryService).backend.kind).toBe('postgres');
    expect(await app.get(Notes).note('first')).toBe(1);
    expect(await app.get(Notes).note('second')).toBe(2);

    const dataSource = app.get(DataSource);
    const rows = await dataSource.query(
      `SELECT count(*)::int AS n FROM ${table.replace('.', '."')}"`,
    );
    expect(rows[0].n).toBe(2);
    // Closing the memory backend leaves a DataSource it was given alone; TypeOrmModule closes it.
    await moduleRef.get(MemoryService).backend.close();
    expect(dataSource.isInitialized).toBe(true);
    await app.close();
    expect(dataSource.isInitialized).toBe(false);
  });
});
