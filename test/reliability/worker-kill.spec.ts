/**
 * A compaction worker killed with SIGKILL in the middle of a job (its LLM call in flight): the
 * publisher's request times out, another worker redoes the check, the session gets exactly one
 * snapshot, and no message is lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactionService, MemoryService } from '@agent-memory/memory';
import {
  compactionPublisher,
  killWorkers,
  longTurns,
  startWorker,
  workerEnv,
  type WorkerProcess,
} from '../support/compaction-workers';
import { startFakeLlm } from '../support/fake-llm.server';

const REQUEST_TIMEOUT_MS = 2000;

it('redoes the job of a worker killed mid-check on another worker: one snapshot, nothing lost', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-worker-kill-'));
  const llm = await startFakeLlm({ defaultReply: 'summary by the surviving worker' });
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  const subject = `reliability.compaction.${tag}`;
  const env = {
    ...workerEnv({ dir, subject, queue: `reliability-${tag}` }),
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'm',
  };
  const moduleRef = await compactionPublisher(
    { dir, subject },
    { requestTimeoutMs: REQUEST_TIMEOUT_MS, maxAttempts: 5 },
  );
  await moduleRef.init();
  const workers: WorkerProcess[] = [];
  try {
    const first = await startWorker(env);
    workers.push(first);
    const session = await moduleRef.get(MemoryService).session('killed.mid-job');
    const turns = longTurns(12);
    await session.save(turns);
    llm.hangNext();
    const compaction = moduleRef.get(CompactionService);
    const { jobId } = compaction.enqueue('killed.mid-job', { force: true });
    await llm.waitForRequests(1);
    workers.push(await startWorker(env));
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;

    const result = await compaction.wait(jobId)!;
    const redoneMs = Date.now() - killedAt;
    expect(result).toMatchObject({ compacted: true });
    expect(compaction.job(jobId)!.state).toBe('done');
    const state = await session.loadSnapshot();
    expect(state.snapshot!.summary).toContain('summary by the surviving worker');
    const entries = await session.entries();
    expect(entries.map((entry) => entry.message)).toEqual(turns);
    console.log(
      `[worker SIGKILL] job redone by the other worker ${redoneMs} ms after the kill ` +
        `(request timeout ${REQUEST_TIMEOUT_MS} ms); LLM calls ${llm.requests.length}, messages kept ${entries.length}/${turns.length}`,
    );
  } finally {
    await moduleRef.close();
    killWorkers(workers);
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
