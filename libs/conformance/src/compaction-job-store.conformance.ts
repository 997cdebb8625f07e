/**
 * The compaction job store's contract (what every replica reads of a job): the same cases on
 * every store, two `SharedCompactionJobs` standing for two replicas on one store, and leases
 * measured with the test's clock.
 */
import {
  JOB_OWNER_LOST,
  SharedCompactionJobs,
  type CompactionJob,
  type CompactionJobStore,
  type StoredCompactionJob,
} from '@agent-memory/memory';
import { TestClock, compactionJob as job } from './fixtures';
import type { ConformanceRunOptions } from './runner';
import { resolveRunner } from './test-api';

/** A job store under test. */
export interface CompactionJobStoreInitializer {
  /** The store's name, in every test title. */
  name: string;
  /**
   * A job store over fresh, isolated storage. `now` is the test's clock (epoch ms), which it moves
   * by hand; `ttlMs` how long a job is kept. A store whose storage keeps time itself may ignore
   * `now` for its time to live.
   */
  createJobStore(options: {
    now: () => number;
    ttlMs: number;
  }): CompactionJobStore | Promise<CompactionJobStore>;
  /** Closes what the store opened and removes its storage. Default: nothing. */
  destroyJobStore?(store: CompactionJobStore): void | Promise<void>;
  /** Removes what was set up for all stores, after the last test. */
  afterAll?(): void | Promise<void>;
}

const TTL_MS = 3_600_000;
const LEASE_MS = 30_000;

/**
 * Registers the job store contract for the store `initializer` makes.
 * @throws MissingTestRunnerError as `describeMemoryBackendConformance` does.
 */
export function describeCompactionJobStoreConformance(
  initializer: CompactionJobStoreInitializer,
  options: ConformanceRunOptions = {},
): void {
  const { describe, it, expect, beforeEach, afterEach, afterAll } = resolveRunner(options.runner);
  describe(`${initializer.name} compaction job store conformance`, () => {
    let clock: TestClock;
    let first: SharedCompactionJobs;
    let second: SharedCompactionJobs;
    let store: CompactionJobStore;

    beforeEach(async () => {
      clock = new TestClock();
      store = await initializer.createJobStore({ now: clock.now, ttlMs: TTL_MS });
      const options = { store, ttlMs: TTL_MS, leaseMs: LEASE_MS, now: clock.now };
      first = new SharedCompactionJobs(options);
      second = new SharedCompactionJobs(options);
    });
    afterEach(async () => {
      await first.close();
      await second.close();
      await initializer.destroyJobStore?.(store);
    });
    afterAll(async () => {
      await initializer.afterAll?.();
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
}
