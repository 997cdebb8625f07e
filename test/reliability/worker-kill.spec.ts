/**
 * A compaction worker killed with SIGKILL in the middle of a job (its LLM call in flight): the
 * publisher's request times out, another worker redoes the check, the session gets exactly one
 * snapshot, and no message is lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Test } from '@nestjs/testing';
import {
  assistantMessage,
  CompactionService,
  jsonFileBackend,
  MemoryModule,
  MemoryService,
  userMessage,
} from '@agent-memory/memory';
import { startFakeLlm } from '../support/fake-llm.server';
import { testNatsUrl } from '../support/services';

const ROOT = resolve(__dirname, '..', '..');
const REQUEST_TIMEOUT_MS = 2000;

function startWorker(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/worker/src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((done) => child.once('exit', done));
  return new Promise((ready, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker ready')) ready({ child, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => fail(new Error(`worker exited before it was ready:\n${output}`)));
  });
}

it('redoes the job of a worker killed mid-check on another worker: one snapshot, nothing lost', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-worker-kill-'));
  const llm = await startFakeLlm({ defaultReply: 'summary by the surviving worker' });
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  const env = {
    MEMORY_BACKEND: 'jsonfile',
    MEMORY_DIR: dir,
    NATS_URL: testNatsUrl(),
    COMPACT_AT_TOKENS: '100',
    COMPACT_KEEP_RECENT: '2',
    COMPACTION_NATS_SUBJECT: `reliability.compaction.${tag}`,
    COMPACTION_NATS_QUEUE: `reliability-${tag}`,
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'm',
  };
  const moduleRef = await Test.createTestingModule({
    imports: [
      MemoryModule.forRoot({
        backend: jsonFileBackend({ dir }),
        compaction: {
          mode: 'nats',
          thresholdTokens: 100,
          keepRecent: 2,
          nats: {
            servers: testNatsUrl(),
            subject: env.COMPACTION_NATS_SUBJECT,
            requestTimeoutMs: REQUEST_TIMEOUT_MS,
            maxAttempts: 5,
          },
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  const workers: ChildProcess[] = [];
  try {
    const first = await startWorker(env);
    workers.push(first.child);
    const session = await moduleRef.get(MemoryService).session('killed.mid-job');
    const turns = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? userMessage(`question ${i}: the river, its bridges and its mills, in some detail please`)
        : assistantMessage(`answer ${i}: seven bridges, the oldest from the twelfth century`),
    );
    await session.save(turns);
    llm.hangNext();
    const compaction = moduleRef.get(CompactionService);
    const { jobId } = compaction.enqueue('killed.mid-job', { force: true });
    await llm.waitForRequests(1);
    workers.push((await startWorker(env)).child);
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
    for (const child of workers) if (child.exitCode === null) child.kill('SIGKILL');
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
