import { Test, type TestingModule } from '@nestjs/testing';
import { longTurns } from '@agent-memory/test-support/compaction-workers';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import type { LlmClient } from '../core/llm-client.interface';
import { assistantMessage, userMessage } from '../core/message';
import type { Summarizer, SummaryInput } from '../compaction/summarizer.interface';
import { OpenAiCompatibleClient } from '../compaction/openai-compatible.client';
import { simpleBackend } from '../simple';
import { CompactionService } from './compaction.service';
import type { MemoryCompactionOptions } from './memory-module-options.interface';
import { MemoryModule } from './memory.module';
import { MemoryService } from './memory.service';

/** A summariser that holds every call until the test releases it, and counts overlap per session. */
class GatedSummarizer implements Summarizer {
  calls = 0;
  running = 0;
  maxRunning = 0;
  private gates: Array<() => void> = [];
  private arrivals: Array<() => void> = [];

  async summarize(input: SummaryInput, opts?: { signal?: AbortSignal }): Promise<string> {
    this.calls++;
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    this.arrivals.splice(0).forEach((resolve) => resolve());
    try {
      await new Promise<void>((resolve, reject) => {
        this.gates.push(resolve);
        opts?.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
      });
      return `summary of ${input.messages.length}`;
    } finally {
      this.running--;
    }
  }
  /** Resolves once a call is waiting at the gate. */
  async arrived(): Promise<void> {
    if (this.running > 0) return;
    await new Promise<void>((resolve) => this.arrivals.push(resolve));
  }
  releaseAll(): void {
    this.gates.splice(0).forEach((resolve) => resolve());
  }
}

describe('CompactionService', () => {
  let moduleRef: TestingModule;

  async function build(compaction: MemoryCompactionOptions) {
    const backend = simpleBackend({ capacity: 1000 });
    moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({
          backend,
          compaction: { thresholdTokens: 100, keepRecent: 2, ...compaction },
        }),
      ],
    }).compile();
    return {
      backend,
      memory: moduleRef.get(MemoryService),
      compaction: moduleRef.get(CompactionService),
    };
  }

  afterEach(async () => {
    await moduleRef?.close();
  });

  it('afterTurn returns at once with a queued job, and the session gets compacted off the request path', async () => {
    const { memory, compaction } = await build({});
    const session = await memory.session('c.after');
    await session.save(longTurns(12));
    const ref = compaction.afterTurn('c.after')!;
    expect(compaction.job(ref.jobId)).toMatchObject({ state: 'queued', sessionId: 'c.after' });
    expect((await session.loadSnapshot()).snapshot).toBeNull();
    const result = await compaction.wait(ref.jobId);
    expect(result).toMatchObject({ compacted: true });
    const job = compaction.job(ref.jobId)!;
    expect(job.state).toBe('done');
    expect(job.finishedAt).toBeDefined();
    const state = await session.loadSnapshot();
    expect(state.snapshot).not.toBeNull();
    expect(state.tail).toHaveLength(2);
  });

  it('the turn helper schedules the check after saving', async () => {
    const { memory, compaction } = await build({});
    await (await memory.session('c.turn')).save(longTurns(12));
    const turn = await memory.runTurn('c.turn', userMessage('one more'), async () => ({
      answer: 'ok',
      messages: [assistantMessage('ok')],
    }));
    expect(turn.compaction).not.toBeNull();
    await expect(compaction.wait(turn.compaction!.jobId)).resolves.toMatchObject({
      compacted: true,
    });
  });

  it('runs one check at a time per session and coalesces a burst into one more run', async () => {
    const summarizer = new GatedSummarizer();
    const { memory, compaction } = await build({ summarizer });
    await (await memory.session('c.burst')).save(longTurns(12));
    const first = compaction.afterTurn('c.burst')!;
    await summarizer.arrived();
    expect(compaction.job(first.jobId)!.state).toBe('running');
    const burst = Array.from({ length: 10 }, () => compaction.afterTurn('c.burst')!.jobId);
    expect(new Set(burst).size).toBe(1);
    expect(burst[0]).not.toBe(first.jobId);
    expect(compaction.job(burst[0])!.state).toBe('queued');
    summarizer.releaseAll();
    await compaction.wait(first.jobId);
    await compaction.wait(burst[0]);
    expect(summarizer.maxRunning).toBe(1);
    // The coalesced check found the session compacted already: no second summary.
    expect(summarizer.calls).toBe(1);
    expect(compaction.job(burst[0])!.result).toMatchObject({
      compacted: false,
      reason: 'below-threshold',
    });
  });

  it('compacts different sessions side by side', async () => {
    const summarizer = new GatedSummarizer();
    const { memory, compaction } = await build({ summarizer });
    for (const id of ['c.a', 'c.b']) await (await memory.session(id)).save(longTurns(12));
    const a = compaction.afterTurn('c.a')!;
    const b = compaction.afterTurn('c.b')!;
    while (summarizer.running < 2)
      await summarizer.arrived().then(() => new Promise((r) => setImmediate(r)));
    summarizer.releaseAll();
    await Promise.all([compaction.wait(a.jobId), compaction.wait(b.jobId)]);
    expect(summarizer.maxRunning).toBe(2);
  });

  it('compact() on demand: dryRun saves nothing, force compacts below the threshold', async () => {
    const { memory, compaction } = await build({ thresholdTokens: 100000 });
    const session = await memory.session('c.demand');
    await session.save(longTurns(8));
    await expect(compaction.compact('c.demand')).resolves.toMatchObject({
      compacted: false,
      reason: 'below-threshold',
    });
    const dry = await compaction.compact('c.demand', { force: true, dryRun: true });
    expect(dry.snapshot).toBeDefined();
    expect((await session.loadSnapshot()).snapshot).toBeNull();
    await expect(compaction.compact('c.demand', { force: true })).resolves.toMatchObject({
      compacted: true,
    });
    expect((await session.loadSnapshot()).snapshot).not.toBeNull();
  });

  describe('with an OpenAI-compatible LLM server', () => {
    let llm: FakeLlm;
    let client: LlmClient;
    beforeAll(async () => {
      llm = await startFakeLlm({ defaultReply: 'the user asked about bridges' });
      client = new OpenAiCompatibleClient({ baseUrl: llm.baseUrl, apiKey: 'k', model: 'small' });
    });
    afterAll(() => llm.close());

    it('summarises through the LLM; a failed call marks the job failed and changes nothing', async () => {
      const { memory, compaction } = await build({ llm: client });
      const session = await memory.session('c.llm');
      await session.save(longTurns(12));
      llm.failNext(500, 'overloaded');
      const failing = compaction.enqueue('c.llm');
      await expect(compaction.wait(failing.jobId)).rejects.toThrow(/overloaded|500/);
      expect(compaction.job(failing.jobId)).toMatchObject({
        state: 'failed',
        error: { message: expect.stringMatching(/500|overloaded/) },
      });
      expect((await session.loadSnapshot()).snapshot).toBeNull();

      const ok = compaction.enqueue('c.llm');
      await expect(compaction.wait(ok.jobId)).resolves.toMatchObject({ compacted: true });
      expect((await session.loadSnapshot()).snapshot!.summary).toContain(
        'the user asked about bridges',
      );
    });
  });

  it('keeps a bounded history of finished jobs', async () => {
    const { memory, compaction } = await build({ historyLimit: 2 });
    await (await memory.session('c.hist')).save(longTurns(2));
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const ref = compaction.enqueue('c.hist', { dryRun: true, force: i % 2 === 0 });
      ids.push(ref.jobId);
      await compaction.wait(ref.jobId)!.catch(() => undefined);
    }
    expect(compaction.job(ids[0])).toBeNull();
    expect(compaction.job(ids[1])).toBeNull();
    expect(compaction.job(ids[3])!.state).toMatch(/done|failed/);
    expect(compaction.job('no-such-job')).toBeNull();
  });

  it('on shutdown aborts what still runs after the grace period and takes no new jobs', async () => {
    const summarizer = new GatedSummarizer();
    const { memory, compaction } = await build({ summarizer, shutdownGraceMs: 0 });
    await (await memory.session('c.stop')).save(longTurns(12));
    const running = compaction.afterTurn('c.stop')!;
    await summarizer.arrived();
    const queued = compaction.enqueue('c.stop', { force: true });
    await compaction.shutdown();
    expect(compaction.job(running.jobId)).toMatchObject({
      state: 'failed',
      error: { message: expect.stringMatching(/shut down/) },
    });
    expect(compaction.job(queued.jobId)).toMatchObject({
      state: 'failed',
      error: { message: expect.stringMatching(/cancelled/) },
    });
    expect(compaction.afterTurn('c.stop')).toBeNull();
    expect(() => compaction.enqueue('c.stop')).toThrow(/shutting down/);
    expect((await (await memory.session('c.stop')).loadSnapshot()).snapshot).toBeNull();
  });
});
