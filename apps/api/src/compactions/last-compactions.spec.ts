import { setTimeout as sleep } from 'node:timers/promises';
import {
  InMemoryCompactionJobStore,
  type CompactionJob,
  type CompactionJobStore,
} from '@agent-memory/memory';
import { LastCompactions } from './last-compactions';

/** The in-memory job store, each put held back by the next of `delaysMs` (then none). */
class HeldBackPuts implements CompactionJobStore {
  private readonly inner = new InMemoryCompactionJobStore();

  constructor(private readonly delaysMs: number[]) {}

  async put(job: Parameters<CompactionJobStore['put']>[0]): Promise<void> {
    await sleep(this.delaysMs.shift() ?? 0);
    await this.inner.put(job);
  }

  get(jobId: string): ReturnType<CompactionJobStore['get']> {
    return this.inner.get(jobId);
  }
}

const finishedJob = (id: string, dryRun: boolean): CompactionJob => ({
  id,
  sessionId: 'trip',
  force: true,
  dryRun,
  state: 'done',
  createdAt: new Date().toISOString(),
  finishedAt: new Date().toISOString(),
});

describe('LastCompactions', () => {
  it('keeps the job that finished last when an earlier job’s write is slower', async () => {
    const last = new LastCompactions();
    last.useStore(Promise.resolve(new HeldBackPuts([100, 0])), 60_000);
    const first = last.record(finishedJob('00000000-0000-4000-8000-000000000001', false));
    const second = last.record(finishedJob('00000000-0000-4000-8000-000000000002', true));
    await Promise.all([first, second]);
    expect(await last.last('trip')).toMatchObject({
      id: '00000000-0000-4000-8000-000000000002',
      dryRun: true,
    });
  });

  it('forgets a session after a record still being written', async () => {
    const last = new LastCompactions();
    last.useStore(Promise.resolve(new HeldBackPuts([100, 0])), 60_000);
    const recorded = last.record(finishedJob('00000000-0000-4000-8000-000000000001', false));
    const forgotten = last.forget('trip');
    await Promise.all([recorded, forgotten]);
    expect(await last.last('trip')).toBeNull();
  });
});
