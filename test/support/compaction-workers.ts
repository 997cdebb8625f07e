/**
 * Compaction worker processes (`apps/worker`) for the worker e2e and reliability tests, and the
 * in-process publisher that hands them jobs over NATS: each test gets its own folder, subject and
 * queue group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  assistantMessage,
  jsonFileBackend,
  MemoryModule,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { testNatsUrl } from './services';

const REPO_ROOT = join(__dirname, '../..');

export interface WorkerProcess {
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output: string[];
  /** Resolves with the exit code once it exited. */
  exited: Promise<number | null>;
}

/** Starts `apps/worker` with `env` added; resolves once it says `worker ready`, rejects if it exits first. */
export function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/worker/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((ready, fail) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('worker ready')) ready({ child, output, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) =>
      fail(new Error(`worker exited with ${code} before it was ready:\n${output.join('')}`)),
    );
  });
}

/** Kills (SIGKILL) the workers still running, for an `afterAll` or `finally`. */
export function killWorkers(workers: readonly { child: ChildProcess }[]): void {
  for (const { child } of workers) if (child.exitCode === null) child.kill('SIGKILL');
}

/** Where a test's workers and publisher meet: a JSON-file folder and a NATS subject of its own. */
export interface WorkerSetup {
  dir: string;
  subject: string;
  queue: string;
}

/** The workers' environment: the JSON-file store in `dir`, compaction above 100 tokens keeping 2. */
export function workerEnv({ dir, subject, queue }: WorkerSetup): Record<string, string> {
  return {
    MEMORY_BACKEND: 'jsonfile',
    MEMORY_DIR: dir,
    NATS_URL: testNatsUrl(),
    COMPACT_AT_TOKENS: '100',
    COMPACT_KEEP_RECENT: '2',
    COMPACTION_NATS_SUBJECT: subject,
    COMPACTION_NATS_QUEUE: queue,
  };
}

/** The app side: a Nest module whose compaction (mode `nats`) publishes jobs on `subject`. */
export function compactionPublisher(
  { dir, subject }: Pick<WorkerSetup, 'dir' | 'subject'>,
  opts: { requestTimeoutMs?: number; maxAttempts?: number; maxConcurrent?: number } = {},
): Promise<TestingModule> {
  const { maxConcurrent, ...nats } = opts;
  return Test.createTestingModule({
    imports: [
      MemoryModule.forRoot({
        backend: jsonFileBackend({ dir }),
        compaction: {
          mode: 'nats',
          thresholdTokens: 100,
          keepRecent: 2,
          maxConcurrent,
          nats: { servers: testNatsUrl(), subject, ...nats },
        },
      }),
    ],
  }).compile();
}

/** `n` user/assistant messages of ~20 tokens each: 12 of them pass the 100-token threshold. */
export const longTurns = (n: number): Message[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? userMessage(
          `question ${i}: tell me about the history of the river and its many bridges and mills`,
        )
      : assistantMessage(
          `answer ${i}: the river was crossed by seven bridges, the oldest from the twelfth century`,
        ),
  );
