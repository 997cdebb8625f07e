/**
 * The sweep's lease on each compaction job store (in-process, PostgreSQL table, NATS KV bucket,
 * JSON-file folder): two leases stand for two replicas on one store; time is an injected clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { InMemoryCompactionJobStore } from '../compaction/in-memory-compaction-job.store';
import type { CompactionJobStore } from '../core/compaction-job-store.interface';
import { JsonFileCompactionJobStore } from '../jsonfile/json-file-compaction-job.store';
import { natsCompactionJobStore } from '../nats/nats-compaction-job.store';
import { ensureMemorySchema } from '../postgres/memory-schema';
import { PostgresCompactionJobStore } from '../postgres/postgres-compaction-job.store';
import { RETENTION_SWEEP_JOB_ID, RetentionLease } from './retention-lease';

const LEASE_MS = 30_000;
const TTL_MS = 3_600_000;

describe('the retention sweep lease', () => {
  const schemas = new TestSchemas('lease');
  const buckets = new TestBuckets('lease');
  const dirs: string[] = [];
  let dataSource: DataSource | null = null;
  let nc: NatsConnection | null = null;
  let nowMs = Date.UTC(2026, 0, 1);
  const now = () => nowMs;

  afterAll(async () => {
    await dataSource?.destroy();
    await nc?.close();
    await schemas.cleanup();
    await buckets.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const CASES: { name: string; make(): Promise<CompactionJobStore> }[] = [
    { name: 'in-process', make: async () => new InMemoryCompactionJobStore(now) },
    {
      name: 'PostgreSQL',
      make: async () => {
        dataSource ??= await new DataSource({ type: 'postgres', url: schemas.url }).initialize();
        const table = schemas.nextTable();
        await ensureMemorySchema(dataSource, table);
        return new PostgresCompactionJobStore(dataSource, table, now);
      },
    },
    {
      name: 'NATS',
      make: async () => {
        nc ??= await connect({ servers: testNatsUrl() });
        return natsCompactionJobStore({ connection: nc, bucket: buckets.next(), ttlMs: TTL_MS });
      },
    },
    {
      name: 'JSON file',
      make: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'agent-memory-lease-'));
        dirs.push(dir);
        return new JsonFileCompactionJobStore({ dir: join(dir, '.jobs'), ttlMs: TTL_MS, now });
      },
    },
  ];

  describe.each(CASES)('on the $name job store', ({ make }) => {
    let store: CompactionJobStore;
    let one: RetentionLease;
    let two: RetentionLease;

    beforeEach(async () => {
      nowMs = Date.UTC(2026, 0, 1);
      store = await make();
      one = new RetentionLease(store, LEASE_MS, now);
      two = new RetentionLease(store, LEASE_MS, now);
    });

    it('of two replicas taking a free lease at once, exactly one gets it', async () => {
      for (let round = 0; round < 5; round++) {
        const got = await Promise.all([one.acquire(), two.acquire()]);
        expect(got.filter(Boolean)).toHaveLength(1);
        await (got[0] ? one : two).release();
      }
    });

    it('the holder renews it; the other gets it once released', async () => {
      expect(await one.acquire()).toBe(true);
      nowMs += LEASE_MS / 2;
      expect(await one.acquire()).toBe(true);
      expect(await two.acquire()).toBe(false);
      await one.release();
      expect((await store.get(RETENTION_SWEEP_JOB_ID))?.state).toBe('done');
      expect(await two.acquire()).toBe(true);
    });

    it('a holder that stops renewing loses it when its lease is over', async () => {
      expect(await one.acquire()).toBe(true);
      nowMs += LEASE_MS - 1;
      expect(await two.acquire()).toBe(false);
      nowMs += 2;
      expect(await two.acquire()).toBe(true);
      // The late holder's release leaves the new holder's lease alone.
      await one.release();
      expect((await store.get(RETENTION_SWEEP_JOB_ID))?.owner).toBe(two.owner);
      expect(await one.acquire()).toBe(false);
    });
  });

  it('refuses a job store without claim, saying why', () => {
    const legacy: CompactionJobStore = {
      put: async () => undefined,
      putIfNewer: async () => true,
      get: async () => null,
      deleteForSessions: async () => 0,
    };
    expect(() => new RetentionLease(legacy, LEASE_MS, now)).toThrow(/claim\(\)/);
  });
});
