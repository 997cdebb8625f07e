/**
 * The two ways to migrate the memory tables, each in a real Nest app on the app's own TypeORM
 * DataSource, on a fresh database and on one the other way migrated first:
 * (a) the library migrates them itself (`ensureSchema: true`, recorded in `<table>_migrations`);
 * (b) the app lists `createMemoryMigrations(table)` in its DataSource with `migrationsRun: true`
 *     (recorded in the app's own migrations table) and turns `ensureSchema` off (or leaves it on).
 * Each must start, keep what is stored, and answer `up` on the PostgreSQL health indicator.
 */
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MemoryModule, MemoryService, userMessage } from '@agent-memory/memory';
import { createMemoryMigrations, postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { PostgresMemoryHealthIndicator } from '.';

const schemas = new TestSchemas('pghealth');
afterAll(() => schemas.cleanup());

interface AppSetup {
  table: string;
  /** (b): the app's DataSource runs the library's migrations. */
  appMigrations: boolean;
  ensureSchema: boolean;
}

/** Starts an app like a user's: TypeOrmModule, MemoryModule on its DataSource, Terminus. */
async function startApp({ table, appMigrations, ensureSchema }: AppSetup): Promise<TestingModule> {
  const schema = table.split('.')[0]!;
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: schemas.url,
        // The app's own migrations table lives in its schema, apart from other test files.
        schema,
        synchronize: false,
        ...(appMigrations
          ? { migrations: createMemoryMigrations(table), migrationsRun: true }
          : {}),
      }),
      MemoryModule.forRootAsync({
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => ({
          backend: postgresBackend({ dataSource, table, ensureSchema }),
        }),
      }),
      TerminusModule,
    ],
    providers: [PostgresMemoryHealthIndicator],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  await moduleRef.init();
  return moduleRef;
}

/** Starts the app, checks health and the stored texts, saves one more, and stops it. */
async function runOnce(setup: AppSetup, text: string): Promise<string[]> {
  const app = await startApp(setup);
  try {
    await expect(app.get(PostgresMemoryHealthIndicator).isHealthy()).resolves.toEqual({
      memory_postgres: {
        status: 'up',
        kind: 'postgres',
        table: setup.table,
        migrations: 'applied',
      },
    });
    const session = await app.get(MemoryService).session('chat');
    await session.save([userMessage(text)]);
    return (await session.retrieve()).map((m) => m.parts[0]!.text!);
  } finally {
    await app.close();
  }
}

async function freshTable(): Promise<string> {
  const table = schemas.nextTable();
  // The app's DataSource `schema` (for its migrations table) must exist before it starts.
  await schemas.query(`CREATE SCHEMA "${table.split('.')[0]}"`);
  return table;
}

async function recordedIn(table: string): Promise<{ library: number; app: number }> {
  const schema = table.split('.')[0]!;
  const count = async (name: string) => {
    const [{ exists }] = await schemas.query<{ exists: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AS exists',
      [`"${schema}"."${name}"`],
    );
    if (!exists) return 0;
    const [{ n }] = await schemas.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}"."${name}"`,
    );
    return n;
  };
  return { library: await count('conversation_memory_migrations'), app: await count('migrations') };
}

const MIGRATIONS = createMemoryMigrations().length;

describe('PostgreSQL memory migrations, both ways, with the health indicator', () => {
  it('(a) the library migrates: fresh, then again on the migrated database', async () => {
    const table = await freshTable();
    const a = { table, appMigrations: false, ensureSchema: true };
    expect(await runOnce(a, 'one')).toEqual(['one']);
    expect(await runOnce(a, 'two')).toEqual(['one', 'two']);
    expect(await recordedIn(table)).toEqual({ library: MIGRATIONS, app: 0 });
  }, 60_000);

  it('(b) the app migrates with ensureSchema off: fresh, then again on the migrated database', async () => {
    const table = await freshTable();
    const b = { table, appMigrations: true, ensureSchema: false };
    expect(await runOnce(b, 'one')).toEqual(['one']);
    expect(await runOnce(b, 'two')).toEqual(['one', 'two']);
    expect(await recordedIn(table)).toEqual({ library: 0, app: MIGRATIONS });
  }, 60_000);

  it('(b) with ensureSchema left on starts too (both runners, either order)', async () => {
    const table = await freshTable();
    const both = { table, appMigrations: true, ensureSchema: true };
    expect(await runOnce(both, 'one')).toEqual(['one']);
    expect(await runOnce(both, 'two')).toEqual(['one', 'two']);
    expect(await recordedIn(table)).toEqual({ library: MIGRATIONS, app: MIGRATIONS });
  }, 60_000);

  it('switches from (a) to (b) and back on one database, keeping every message', async () => {
    const table = await freshTable();
    expect(await runOnce({ table, appMigrations: false, ensureSchema: true }, 'a')).toEqual(['a']);
    expect(await runOnce({ table, appMigrations: true, ensureSchema: false }, 'b')).toEqual([
      'a',
      'b',
    ]);
    expect(await runOnce({ table, appMigrations: false, ensureSchema: true }, 'c')).toEqual([
      'a',
      'b',
      'c',
    ]);
    const other = await freshTable();
    expect(await runOnce({ table: other, appMigrations: true, ensureSchema: false }, 'b')).toEqual([
      'b',
    ]);
    expect(await runOnce({ table: other, appMigrations: false, ensureSchema: true }, 'a')).toEqual([
      'b',
      'a',
    ]);
  }, 60_000);

  it('answers down naming what is missing when nobody migrated, and after a trigger is dropped', async () => {
    const table = await freshTable();
    const app = await startApp({ table, appMigrations: false, ensureSchema: false });
    try {
      await expect(app.get(PostgresMemoryHealthIndicator).isHealthy()).resolves.toMatchObject({
        memory_postgres: {
          status: 'down',
          migrations: 'pending',
          missing: expect.arrayContaining([
            'table conversation_memory',
            'table conversation_memory_sessions',
            'trigger agent_memory_added',
          ]),
        },
      });
    } finally {
      await app.close();
    }
    expect(await runOnce({ table, appMigrations: true, ensureSchema: false }, 'x')).toEqual(['x']);
    await schemas.query(`DROP TRIGGER agent_memory_removed ON ${table}`);
    await schemas.query(`ALTER TABLE ${table}_sessions DROP COLUMN meta`);
    const broken = await startApp({ table, appMigrations: false, ensureSchema: false });
    try {
      await expect(broken.get(PostgresMemoryHealthIndicator).isHealthy()).resolves.toMatchObject({
        memory_postgres: {
          status: 'down',
          missing: ['column conversation_memory_sessions.meta', 'trigger agent_memory_removed'],
        },
      });
    } finally {
      await broken.close();
    }
  }, 60_000);
});
