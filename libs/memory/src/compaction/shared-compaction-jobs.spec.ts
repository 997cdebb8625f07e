/**
 * Compaction job states every replica can read: the same cases on each job store (in-process,
 * PostgreSQL table, NATS KV bucket, JSON-file folder), two `SharedCompactionJobs` standing for two
 * replicas on one store, and leases measured with an injected clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { DataSource } from 'typeorm';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { JsonFileCompactionJobStore } from '../jsonfile/json-file-compaction-job.store';
import { natsCompactionJobStore } from '../nats/nats-compaction-job.store';
import { ensureMemorySchema } from '../postgres/memory-schema';
import { PostgresCompactionJobStore } from '../postgres/postgres-compaction-job.store';
import type { CompactionJob } from '../core/compaction-job';
import type {
  CompactionJobStore,
  StoredCompactionJob,
} from '../core/compaction-job-store.interface';
import { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
import { JOB_OWNER_LOST, SharedCompactionJobs } from './shared-compaction-jobs';

/** A clock the test moves by hand (epoch ms). */
class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.ms;
}

const TTL_MS = 3_600_000;
const LEASE_MS = 30_000;

function job(
  id: string,
  state: CompactionJob['state'],
  extra: Partial<CompactionJob> = {},
): CompactionJob {
  return {
    id,
    sessionId: 'session-1',
    force: true,
    dryRun: false,
    state,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

interface StoreCase {
  name: string;
  make(clock: TestClock): Promise<CompactionJobStore>;
}

describe('shared compaction jobs', () => {
  const schemas = new TestSchemas('jobs');
  const buckets = new TestBuckets('jobs');
  const dirs: string[] = [];
  let dataSource: DataSource | null = null;
  let nc: NatsConnection | null = null;
  const replicas: SharedCompactionJobs[] = [];

  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await dataSource?.destroy();
    await nc?.close();
    await schemas.cleanup();
    await buckets.cleanup();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const CASES: StoreCase[] = [
    { name: 'in-process', make: async (clock) => new InMemoryCompactionJobStore(clock.now) },
    {
      name: 'PostgreSQL',
      make: async (clock) => {
        dataSource ??= await new DataSource({ type: 'postgres', url: schemas.url }).initialize();
        const table = schemas.nextTable();
        await ensureMemorySchema(dataSource, table);
        return new PostgresCompactionJobStore(dataSource, table, clock.now);
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
      make: async (clock) => {
        const dir = mkdtempSync(join(tmpdir(), 'agent-memory-jobs-'));
        dirs.push(dir);
        return new JsonFileCompactionJobStore({
          dir: join(dir, '.jobs'),
          ttlMs: TTL_MS,
          now: clock.now,
        });
      },
    },
  ];

  describe.each(CASES)('on the $name job store', ({ make }) => {
    let clock: TestClock;
    let first: SharedCompactionJobs;
    let second: SharedCompactionJobs;
    let store: CompactionJobStore;

    beforeEach(async () => {
      clock = new TestClock();
      store = await make(clock);
      const options = { store, ttlMs: TTL_MS, leaseMs: LEASE_MS, now: clock.now };
      first = new SharedCompactionJobs(options);
      second = new SharedCompactionJobs(options);
      replicas.push(first, second);
    });

    it('lets another replica read every state of a job, the result included', async () => {
      const id = '3f0c1c4e-6f1d-4a53-9b7e-0d2f7a6c9e01';
      expect(await second.lookup(id)).toBeNull();
      await first.record(job(id, 'queued'));
      expect(await second.lookup(id)).toEqual(job(id, 'queued'));
      await first.record(job(id, 'running', { startedAt: '2026-01-01T00:00:01.000Z' }));
      expect((await second.lookup(id))!.state).toBe('running');
      const result = { compacted: true, upTo: 7, tokensBefore: 900, tokensAfter: 120 };
      const done = job(id, 'done', {
        startedAt: '2026-01-01T00:00:01.000Z',
        finishedAt: '2026-01-01T00:00:02.000Z',
        result: result as CompactionJob['result'],
      });
      await first.record(done);
      // Exactly the job: the owner and lease stay inside the store.
      expect(await second.lookup(id)).toEqual(done);
    });

    it('deletes the jobs of erased sessions, and only those', async () => {
      const ids = [
        'e0000000-0000-4000-8000-000000000001',
        'e0000000-0000-4000-8000-000000000002',
        'e0000000-0000-4000-8000-000000000003',
      ];
      await first.record(job(ids[0]!, 'queued', { sessionId: 'erased-a' }));
      await first.record(job(ids[1]!, 'queued', { sessionId: 'erased-b' }));
      await second.record(job(ids[2]!, 'queued', { sessionId: 'kept' }));
      expect(await store.deleteForSessions(['erased-a', 'erased-b', 'never-had-jobs'])).toBe(2);
      expect(await second.lookup(ids[0]!)).toBeNull();
      expect(await second.lookup(ids[1]!)).toBeNull();
      expect((await first.lookup(ids[2]!))!.sessionId).toBe('kept');
      expect(await store.deleteForSessions(['erased-a'])).toBe(0);
      expect(await store.deleteForSessions([])).toBe(0);
    });

    it('keeps the last of writes issued back to back', async () => {
      const id = 'b2a4e0c1-0000-4000-8000-000000000002';
      const writes = [
        first.record(job(id, 'queued')),
        first.record(job(id, 'running')),
        first.record(job(id, 'failed', { error: { name: 'Error', message: 'llm down' } })),
      ];
      await Promise.all(writes);
      expect(await second.lookup(id)).toMatchObject({
        state: 'failed',
        error: { message: 'llm down' },
      });
    });

    it('reports a running job failed once its owner stopped renewing it past the lease', async () => {
      const id = 'c0ffee00-0000-4000-8000-000000000003';
      await first.record(job(id, 'running'));
      clock.ms += LEASE_MS - 1;
      expect((await second.lookup(id))!.state).toBe('running');
      clock.ms += 1;
      const lost = await second.lookup(id);
      expect(lost).toMatchObject({
        state: 'failed',
        error: { code: JOB_OWNER_LOST, name: 'CompactionJobLostError' },
      });
      expect(Date.parse(lost!.finishedAt!)).toBe(clock.ms);
    });

    it('keeps a renewed job alive and forgets every job after its time to live', async () => {
      const id = 'd00d0000-0000-4000-8000-000000000004';
      await first.record(job(id, 'queued'));
      clock.ms += LEASE_MS - 10;
      await first.record(job(id, 'queued'));
      clock.ms += LEASE_MS - 10;
      expect((await second.lookup(id))!.state).toBe('queued');
      await first.record(job(id, 'done'));
      clock.ms += TTL_MS;
      expect(await second.lookup(id)).toBeNull();
    });

    /** A stored job that finished `second` seconds into 2026 (or never, for null). */
    const finishedAt = (id: string, second: number | null): StoredCompactionJob => ({
      ...job(id, second === null ? 'running' : 'done'),
      ...(second === null
        ? {}
        : { finishedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() }),
      owner: 'replica',
      leaseExpiresAt: clock.ms + LEASE_MS,
      expiresAt: clock.ms + TTL_MS,
    });

    it('keeps, under putIfNewer, the job that finished last, whichever write comes last', async () => {
      const id = 'e1e1e1e1-0000-4000-8000-000000000005';
      expect(await store.putIfNewer(finishedAt(id, 5))).toBe(true);
      expect(await store.putIfNewer(finishedAt(id, 3))).toBe(false);
      expect(await store.putIfNewer(finishedAt(id, null))).toBe(false);
      expect((await store.get(id))!.finishedAt).toBe('2026-01-01T00:00:05.000Z');
      expect(await store.putIfNewer(finishedAt(id, 5))).toBe(true);
      expect(await store.putIfNewer(finishedAt(id, 7))).toBe(true);
      expect((await store.get(id))!.finishedAt).toBe('2026-01-01T00:00:07.000Z');
    });

    it('keeps the job that finished last of putIfNewer writes racing each other', async () => {
      const id = 'f2f2f2f2-0000-4000-8000-000000000006';
      const seconds = [4, 9, 1, 6, 8, 2, 7, 3];
      const stored = await Promise.all(seconds.map((s) => store.putIfNewer(finishedAt(id, s))));
      expect(stored[seconds.indexOf(9)]).toBe(true);
      expect((await store.get(id))!.finishedAt).toBe('2026-01-01T00:00:09.000Z');
    });

    it('answers null for ids that are not job ids, without a lookup that could escape', async () => {
      for (const id of ['../../etc/passwd', 'a b', '', 'x'.repeat(129), 'job.with.dots']) {
        expect([id, await second.lookup(id)]).toEqual([id, null]);
      }
    });
  });

  it('renews the lease of queued and running jobs while the owner lives', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const clock = new TestClock();
      const store = new InMemoryCompactionJobStore(clock.now);
      const owner = new SharedCompactionJobs({ store, leaseMs: LEASE_MS, now: clock.now });
      const reader = new SharedCompactionJobs({ store, leaseMs: LEASE_MS, now: clock.now });
      replicas.push(owner, reader);
      const id = 'e0e0e0e0-0000-4000-8000-000000000005';
      await owner.record(job(id, 'running'));
      for (let beat = 0; beat < 6; beat++) {
        clock.ms += LEASE_MS / 3;
        await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
      }
      // Two leases later it is still running: the heartbeat renewed it.
      expect((await reader.lookup(id))!.state).toBe('running');
      await owner.close();
      clock.ms += LEASE_MS;
      expect((await reader.lookup(id))!.state).toBe('failed');
    } finally {
      jest.useRealTimers();
    }
  });
});
