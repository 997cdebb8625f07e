/**
 * Compaction job states every replica can read: the contract runs on each job store (in-process,
 * PostgreSQL table, NATS KV bucket, JSON-file folder) through `@agent-memory/conformance`; the
 * heartbeat that renews a live owner's lease is checked here with fake timers.
 */
import {
  TestClock,
  compactionJob as job,
  describeCompactionJobStoreConformance,
} from '@agent-memory/conformance';
import {
  inMemoryJobStoreInitializer,
  jobStoreInitializer,
  jsonFileInitializer,
  natsInitializer,
  postgresInitializer,
} from '@agent-memory/test-conformance';
import { InMemoryCompactionJobStore } from './in-memory-compaction-job.store';
import { SharedCompactionJobs } from './shared-compaction-jobs';

const LEASE_MS = 30_000;

describeCompactionJobStoreConformance(inMemoryJobStoreInitializer());
// Each store's jobs next to a backend of its own, opened by its driver.
describeCompactionJobStoreConformance(jobStoreInitializer('PostgreSQL', postgresInitializer()));
describeCompactionJobStoreConformance(jobStoreInitializer('NATS', natsInitializer()));
describeCompactionJobStoreConformance(jobStoreInitializer('JSON file', jsonFileInitializer()));

describe('shared compaction jobs', () => {
  const replicas: SharedCompactionJobs[] = [];
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
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
