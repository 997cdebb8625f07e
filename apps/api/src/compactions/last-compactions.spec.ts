import { setTimeout as sleep } from 'node:timers/promises';
import {
  InMemoryCompactionJobStore,
  type CompactionJob,
  type CompactionJobStore,
} from '@agent-memory/memory';
import { LastCompactions } from './last-compactions';

type StoredJob = Parameters<CompactionJobStore['put']>[0];

/**
 * The in-memory job store (or `inner`, shared by two of these standing for two replicas), each
 * write held back by the next of `delaysMs` (then none).
 */
class HeldBackPuts implements CompactionJobStore {
  constructor(
    private readonly delaysMs: number[],
    private readonly inner: CompactionJobStore = new InMemoryCompactionJobStore(),
  ) {}

  async put(job: StoredJob): Promise<void> {
    await sleep(this.delaysMs.shift() ?? 0);
    await this.inner.put(job);
  }

  async putIfNewer(job: StoredJob): Promise<boolean> {
    await sleep(this.delaysMs.shift() ?? 0);
    return this.inner.putIfNewer(job);
  }

  get(jobId: string): ReturnType<CompactionJobStore['get']> {
    return this.inner.get(jobId);
  }

  deleteForSessions(sessionIds: readonly string[]): Promise<number> {
    return this.inner.deleteForSessions(sessionIds);
  }
}

const finishedJob = (id: string, dryRun: boolean, finishedAt = new Date()): CompactionJob => ({
  id,
  sessionId: 'trip',
  force: true,
  dryRun,
  state: 'done',
  createdAt: new Date(finishedAt.getTime() - 1000).toISOString(),
  finishedAt: finishedAt.toISOString(),
});

const FIRST_JOB = '00000000-0000-4000-8000-000000000001';
const SECOND_JOB = '00000000-0000-4000-8000-000000000002';

describe('LastCompactions', () => {
  it('keeps the job that finished last when an earlier job’s write is slower', async () => {
    const last = new LastCompactions();
    last.useStore(Promise.resolve(new HeldBackPuts([100, 0])), 60_000);
    const first = last.record(finishedJob(FIRST_JOB, false));
    const second = last.record(finishedJob(SECOND_JOB, true));
    await Promise.all([first, second]);
    expect(await last.last('trip')).toMatchObject({ id: SECOND_JOB, dryRun: true });
  });

  it('forgets a session after a record still being written', async () => {
    const last = new LastCompactions();
    last.useStore(Promise.resolve(new HeldBackPuts([100, 0])), 60_000);
    const recorded = last.record(finishedJob(FIRST_JOB, false));
    const forgotten = last.forget('trip');
    await Promise.all([recorded, forgotten]);
    expect(await last.last('trip')).toBeNull();
  });

  describe('on two replicas sharing one store', () => {
    const now = Date.now();
    const replicas = (firstDelaysMs: number[]) => {
      const shared = new InMemoryCompactionJobStore();
      const [a, b] = [new LastCompactions(() => now), new LastCompactions(() => now)];
      a.useStore(Promise.resolve(new HeldBackPuts(firstDelaysMs, shared)), 60_000);
      b.useStore(Promise.resolve(new HeldBackPuts([], shared)), 60_000);
      return [a, b] as const;
    };

    it('keeps the job that finished last when the other replica’s earlier job is written last', async () => {
      const [a, b] = replicas([100]);
      await Promise.all([
        a.record(finishedJob(FIRST_JOB, false, new Date(now - 50))),
        b.record(finishedJob(SECOND_JOB, true, new Date(now))),
      ]);
      expect(await a.last('trip')).toMatchObject({ id: SECOND_JOB, dryRun: true });
      expect(await b.last('trip')).toMatchObject({ id: SECOND_JOB });
    });

    it('keeps a forget over a job that finished before it, written later by the other replica', async () => {
      const [a, b] = replicas([100]);
      await Promise.all([
        a.record(finishedJob(FIRST_JOB, false, new Date(now - 50))),
        b.forget('trip'),
      ]);
      expect(await a.last('trip')).toBeNull();
    });

    it('records a job that finished after a forget', async () => {
      const [a, b] = replicas([]);
      await b.forget('trip');
      await a.record(finishedJob(SECOND_JOB, false, new Date(now + 10)));
      expect(await b.last('trip')).toMatchObject({ id: SECOND_JOB });
    });
  });
});
