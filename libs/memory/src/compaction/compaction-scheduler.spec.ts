import { CompactionShutdownError } from '../core/errors';
import { userMessage } from '../core/message';
import type {
  CompactionRequest,
  CompactionRunner,
  CompactionTurnHint,
} from './compaction-job.interface';
import { CompactionScheduler } from './compaction-scheduler';
import { SharedCompactionJobs } from './shared-compaction-jobs';
import type { CompactionResult } from '../core/compaction-job';

/** A runner whose checks wait until the test lets them finish; it records what ran. */
class HeldRunner implements CompactionRunner {
  readonly started: CompactionRequest[] = [];
  readonly hints: (CompactionTurnHint | undefined)[] = [];
  private readonly held: Array<(result: CompactionResult) => void> = [];

  run(
    request: CompactionRequest,
    _signal: AbortSignal,
    hint?: CompactionTurnHint,
  ): Promise<CompactionResult> {
    this.started.push(request);
    this.hints.push(hint);
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** Finishes the oldest running check. */
  finishOne(): void {
    this.held.shift()?.({
      compacted: false,
      reason: 'below-threshold',
      tokensBefore: 1,
      tokensAfter: 1,
    });
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CompactionScheduler (plain, without Nest)', () => {
  let runner: HeldRunner;
  let scheduler: CompactionScheduler;
  let ids: number;

  beforeEach(() => {
    runner = new HeldRunner();
    ids = 0;
    scheduler = new CompactionScheduler({
      runner,
      shared: new SharedCompactionJobs(),
      config: { maxConcurrent: 2, historyLimit: 10, shutdownGraceMs: 1000 },
      now: () => new Date('2026-01-02T03:04:05.000Z'),
      newId: () => `job-${++ids}`,
      logger: { warn: () => undefined },
    });
  });
  afterEach(async () => {
    const stopping = scheduler.shutdown();
    for (let i = 0; i < 10; i++) runner.finishOne();
    await stopping;
  });

  it('stamps jobs with the injected clock and ids', async () => {
    const { jobId } = scheduler.enqueue('s.one');
    expect(jobId).toBe('job-1');
    expect(scheduler.job(jobId)).toMatchObject({
      id: 'job-1',
      sessionId: 's.one',
      state: 'queued',
      createdAt: '2026-01-02T03:04:05.000Z',
    });
    await settle();
    expect(scheduler.job(jobId)).toMatchObject({
      state: 'running',
      startedAt: '2026-01-02T03:04:05.000Z',
    });
    runner.finishOne();
    await scheduler.wait(jobId);
    expect(scheduler.job(jobId)).toMatchObject({
      state: 'done',
      finishedAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it('reports its backlog: queued and running jobs, and when the oldest was created', async () => {
    let clock = Date.parse('2026-01-02T03:00:00.000Z');
    const timed = new CompactionScheduler({
      runner,
      shared: new SharedCompactionJobs(),
      config: { maxConcurrent: 1, historyLimit: 10, shutdownGraceMs: 1000 },
      now: () => new Date(clock),
      logger: { warn: () => undefined },
    });
    try {
      expect(timed.backlog()).toEqual({ queued: 0, running: 0, oldestCreatedAt: null });
      timed.enqueue('s.a');
      clock += 60_000;
      timed.enqueue('s.b');
      await settle();
      // One slot: s.a runs, s.b waits; the oldest is s.a's.
      expect(timed.backlog()).toEqual({
        queued: 1,
        running: 1,
        oldestCreatedAt: new Date('2026-01-02T03:00:00.000Z'),
      });
      runner.finishOne();
      await settle();
      expect(timed.backlog()).toEqual({
        queued: 0,
        running: 1,
        oldestCreatedAt: new Date('2026-01-02T03:01:00.000Z'),
      });
      runner.finishOne();
      await settle();
      expect(timed.backlog()).toEqual({ queued: 0, running: 0, oldestCreatedAt: null });
    } finally {
      await timed.shutdown();
    }
  });

  it('runs one check per session at a time and joins a burst into one queued check', async () => {
    const first = scheduler.afterTurn('s.burst')!;
    await settle();
    const burst = [1, 2, 3].map(() => scheduler.afterTurn('s.burst')!.jobId);
    expect(new Set(burst).size).toBe(1);
    expect(burst[0]).not.toBe(first.jobId);
    await settle();
    expect(runner.started).toHaveLength(1);
    runner.finishOne();
    await scheduler.wait(first.jobId);
    await settle();
    expect(runner.started).toHaveLength(2);
  });

  it("hands a joined check every turn's saved messages, or none once a caller gave none", async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((text) => userMessage(text));
    const first = scheduler.afterTurn('s.hint', [a!])!;
    await settle();
    scheduler.afterTurn('s.hint', [b!]);
    scheduler.afterTurn('s.hint', [c!]);
    runner.finishOne();
    await scheduler.wait(first.jobId);
    await settle();
    expect(runner.hints.map((hint) => hint?.added)).toEqual([[a], [b, c]]);
    scheduler.afterTurn('s.hint', [a!]);
    scheduler.afterTurn('s.hint');
    runner.finishOne();
    await settle();
    await settle();
    expect(runner.hints).toHaveLength(3);
    expect(runner.hints[2]).toBeUndefined();
  });

  it('runs at most maxConcurrent checks across sessions', async () => {
    for (const id of ['s.a', 's.b', 's.c']) scheduler.enqueue(id);
    await settle();
    expect(runner.started.map((r) => r.sessionId)).toEqual(['s.a', 's.b']);
    runner.finishOne();
    await settle();
    await settle();
    expect(runner.started.map((r) => r.sessionId)).toEqual(['s.a', 's.b', 's.c']);
  });

  it('on shutdown, cancels queued checks and refuses new ones with COMPACTION_SHUTDOWN', async () => {
    scheduler.enqueue('s.busy');
    await settle();
    const queued = scheduler.enqueue('s.busy');
    const stopping = scheduler.shutdown();
    await expect(scheduler.wait(queued.jobId)).rejects.toBeInstanceOf(CompactionShutdownError);
    expect(scheduler.job(queued.jobId)?.error).toMatchObject({ code: 'COMPACTION_SHUTDOWN' });
    expect(() => scheduler.enqueue('s.late')).toThrow(CompactionShutdownError);
    runner.finishOne();
    await stopping;
  });
});
