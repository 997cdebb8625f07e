import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestingModule } from '@nestjs/testing';
import { CompactionService, MemoryService } from '@agent-memory/memory';
import {
  compactionPublisher,
  killWorkers,
  longTurns,
  startWorker,
  workerEnv,
  type WorkerProcess,
} from '@agent-memory/test-support/compaction-workers';
import { startFakeLlm } from '@agent-memory/test-support/fake-llm.server';

describe('compaction workers over NATS (mode: nats)', () => {
  jest.setTimeout(90_000);
  let dir: string;
  let moduleRef: TestingModule;
  const workers: WorkerProcess[] = [];
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  const subject = `test.compaction.${tag}`;
  const env = () => workerEnv({ dir, subject, queue: `test-workers-${tag}` });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compaction-workers-'));
    workers.push(...(await Promise.all([startWorker(env()), startWorker(env())])));
    moduleRef = await compactionPublisher(
      { dir, subject },
      { requestTimeoutMs: 15_000, maxAttempts: 8, maxConcurrent: 8 },
    );
    await moduleRef.init();
  });

  afterAll(async () => {
    await moduleRef?.close();
    killWorkers(workers);
    rmSync(dir, { recursive: true, force: true });
  });

  it('compacts 50 sessions exactly once each, none lost when a worker stops mid-run', async () => {
    const memory = moduleRef.get(MemoryService);
    const compaction = moduleRef.get(CompactionService);
    const ids = Array.from({ length: 50 }, (_, i) => `w.session-${i}`);
    for (const id of ids) await (await memory.session(id)).save(longTurns(12));

    const jobs = ids.map((id) => compaction.afterTurn(id)!.jobId);
    workers[0].child.kill('SIGTERM');
    const results = await Promise.all(jobs.map((jobId) => compaction.wait(jobId)!));

    expect(jobs.map((jobId) => compaction.job(jobId)!.state)).toEqual(ids.map(() => 'done'));
    for (const [i, id] of ids.entries()) {
      const state = await (await memory.session(id)).loadSnapshot();
      expect(state.snapshot).not.toBeNull();
      // One compaction keeps the last 2 messages; a second one would have found nothing to cover.
      expect(state.tail).toHaveLength(2);
      expect(results[i].tokensBefore).toBeGreaterThan(100);
    }
    expect(await workers[0].exited).toBe(0);

    expect(workers[0].output.join('')).toContain('SIGTERM: draining');

    // The remaining worker keeps serving, and a session already compacted stays as it is.
    const before = (await (await memory.session(ids[0])).loadSnapshot()).snapshot;
    await expect(compaction.compact(ids[0])).resolves.toMatchObject({ compacted: false });
    expect((await (await memory.session(ids[0])).loadSnapshot()).snapshot).toEqual(before);
  });

  it('a worker stopped during a check aborts it after the grace period and another worker redoes it', async () => {
    const llm = await startFakeLlm({ defaultReply: 'summary by the second worker' });
    const handBack = {
      ...env(),
      COMPACTION_NATS_SUBJECT: `${subject}.handback`,
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'm',
      COMPACTION_SHUTDOWN_GRACE_MS: '200',
    };
    const local = await compactionPublisher({ dir, subject: handBack.COMPACTION_NATS_SUBJECT });
    try {
      const first = await startWorker(handBack);
      workers.push(first);
      await (await local.get(MemoryService).session('w.handback')).save(longTurns(12));
      llm.hangNext();
      const job = local.get(CompactionService).afterTurn('w.handback')!;
      await llm.waitForRequests(1);
      workers.push(await startWorker(handBack));
      first.child.kill('SIGTERM');
      await expect(local.get(CompactionService).wait(job.jobId)).resolves.toMatchObject({
        compacted: true,
      });
      expect(await first.exited).toBe(0);
      expect(llm.requests).toHaveLength(2);
      const state = await (await local.get(MemoryService).session('w.handback')).loadSnapshot();
      expect(state.snapshot!.summary).toContain('summary by the second worker');
    } finally {
      await local.close();
      await llm.close();
    }
  });

  it('a worker with a bad environment exits with every problem listed', async () => {
    await expect(
      startWorker({ NATS_URL: '', COMPACT_AT_TOKENS: 'lots', MEMORY_BACKEND: 'jsonfile' }),
    ).rejects.toThrow(
      /exited with 1[\s\S]*NATS_URL is required with the compaction worker[\s\S]*COMPACT_AT_TOKENS="lots" must be a whole number/,
    );
  });
});
