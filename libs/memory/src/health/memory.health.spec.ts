import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { Test, type TestingModule } from '@nestjs/testing';
import { natsBackend } from '@agent-memory/memory/nats';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { TestBuckets } from '@agent-memory/test-support/nats';
import {
  startThrowawayNats,
  startThrowawayPostgres,
  testNatsUrl,
  type ThrowawayServer,
} from '@agent-memory/test-support/services';
import type { MemoryBackend } from '../core/backend.interface';
import { jsonFileBackend } from '../jsonfile';
import { MemoryModule } from '../nest';
import { MemoryHealthIndicator, NatsMemoryHealthIndicator, PostgresMemoryHealthIndicator } from '.';

describe('memory health indicators', () => {
  const buckets = new TestBuckets('health');
  const schemas = new TestSchemas('health');
  let moduleRef: TestingModule | undefined;
  let dir: string;

  async function indicators(backend: MemoryBackend) {
    @Module({
      imports: [TerminusModule],
      providers: [MemoryHealthIndicator, NatsMemoryHealthIndicator, PostgresMemoryHealthIndicator],
    })
    class HealthModule {}
    moduleRef = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend, isGlobal: true }), HealthModule],
    }).compile();
    return {
      memory: moduleRef.get(MemoryHealthIndicator),
      nats: moduleRef.get(NatsMemoryHealthIndicator),
      postgres: moduleRef.get(PostgresMemoryHealthIndicator),
    };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memory-health-'));
  });
  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => Promise.all([buckets.cleanup(), schemas.cleanup()]));

  it('is up for a live jsonfile backend; the NATS indicator says it is not NATS', async () => {
    const { memory, nats } = await indicators(jsonFileBackend({ dir }));
    await expect(memory.isHealthy()).resolves.toEqual({
      memory: { status: 'up', kind: 'jsonfile' },
    });
    await expect(nats.isHealthy()).resolves.toEqual({
      memory_nats: { status: 'down', message: 'the memory backend is jsonfile, not nats' },
    });
  });

  it('is up for a live NATS backend, with the bucket details', async () => {
    const bucket = buckets.next();
    const { memory, nats } = await indicators(
      await natsBackend({ servers: testNatsUrl(), bucket }),
    );
    await expect(memory.isHealthy('store')).resolves.toMatchObject({
      store: { status: 'up', kind: 'nats', bucket },
    });
    const result = await nats.isHealthy();
    expect(result.memory_nats).toMatchObject({
      status: 'up',
      bucket,
      maxPayload: expect.any(Number),
    });
  });

  describe('with a NATS server that stops', () => {
    let server: ThrowawayServer;
    beforeAll(async () => {
      server = await startThrowawayNats();
    });
    afterAll(() => server.dispose());

    it('answers down within the timeout instead of throwing or hanging', async () => {
      const { memory, nats } = await indicators(
        await natsBackend({
          servers: server.url,
          bucket: 'health',
          connectionOptions: { reconnectTimeWait: 100 },
        }),
      );
      await expect(memory.isHealthy()).resolves.toMatchObject({ memory: { status: 'up' } });
      await server.stop();
      await expect(memory.isHealthy('memory', { timeoutMs: 500 })).resolves.toMatchObject({
        memory: { status: 'down', kind: 'nats', message: expect.any(String) },
      });
      await expect(nats.isHealthy('memory_nats', { timeoutMs: 500 })).resolves.toMatchObject({
        memory_nats: { status: 'down', bucket: 'health', message: expect.any(String) },
      });
      await server.start();
    });
  });

  it('is up for Postgres with its migrations applied, down while they are pending', async () => {
    const table = schemas.nextTable();
    const { memory, postgres } = await indicators(
      await postgresBackend({ url: schemas.url, table }),
    );
    await expect(memory.isHealthy()).resolves.toEqual({
      memory: { status: 'up', kind: 'postgres', table, migrations: 'applied' },
    });
    await expect(postgres.isHealthy()).resolves.toEqual({
      memory_postgres: { status: 'up', kind: 'postgres', table, migrations: 'applied' },
    });
    await moduleRef!.close();
    const fresh = schemas.nextTable();
    const pending = await indicators(
      await postgresBackend({ url: schemas.url, table: fresh, ensureSchema: false }),
    );
    await expect(pending.postgres.isHealthy()).resolves.toMatchObject({
      memory_postgres: { status: 'down', migrations: 'pending' },
    });
    // Every indicator follows the same readiness recipe, naming what is missing.
    const base = fresh.split('.')[1]!;
    const down = await pending.memory.isHealthy();
    expect(down.memory).toMatchObject({ status: 'down', kind: 'postgres', migrations: 'pending' });
    expect(down.memory.missing).toEqual(
      expect.arrayContaining([`table ${base}_sessions`, `procedure ${base}_save_group`]),
    );
  });

  describe('with a PostgreSQL server that stops', () => {
    let server: ThrowawayServer;
    beforeAll(async () => {
      server = await startThrowawayPostgres();
    }, 60_000);
    afterAll(() => server.dispose());

    it('answers down within the timeout instead of throwing or hanging', async () => {
      const { memory, postgres } = await indicators(
        await postgresBackend({ url: server.url, connectTimeoutMs: 1000 }),
      );
      await expect(postgres.isHealthy()).resolves.toMatchObject({
        memory_postgres: { status: 'up' },
      });
      await server.stop();
      await expect(memory.isHealthy('memory', { timeoutMs: 500 })).resolves.toMatchObject({
        memory: { status: 'down', kind: 'postgres', message: expect.any(String) },
      });
      await expect(
        postgres.isHealthy('memory_postgres', { timeoutMs: 500 }),
      ).resolves.toMatchObject({
        memory_postgres: { status: 'down', message: expect.any(String) },
      });
    });
  });
});
