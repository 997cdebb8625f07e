/**
 * The admin server as its own process (`node scripts/start.mjs`, as `npm start` runs it), for
 * tests with several replicas on one backend or a replica killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@agent-memory/test-support/services';
import { adminRequest, type AdminRequest } from '@agent-memory/test-support/admin-request';
import { TEST_ADMIN_TOKEN } from './api-test-server';

const START_SCRIPT = join(__dirname, '..', '..', '..', '..', 'scripts', 'start.mjs');

export interface ApiProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** `fetch` with the admin token (unless `token` is null). */
  request: AdminRequest;
  /** Resolves with the exit code (or null after a signal). */
  readonly exited: Promise<number | null>;
  /** SIGKILL (no shutdown hooks), then waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts a server with `env` on a free port and resolves once `/health/ready` answers 200.
 * @throws when it exits or is not ready within `timeoutMs` (its output in the message).
 */
export async function startApiProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ApiProcess> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^(MEMORY_|COMPACT|LLM_|NATS_URL$|DATABASE_URL$|PORT$|HOST$|LOG_FORMAT$)/.test(key),
    ),
  );
  const child = spawn(process.execPath, [START_SCRIPT], {
    env: {
      ...inherited,
      MEMORY_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const request = adminRequest(url, TEST_ADMIN_TOKEN);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined) {
      throw new Error(`the server exited (${exitCode}) before it was ready:\n${output}`);
    }
    const ready = await fetch(`${url}/health/ready`).catch(() => null);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    output: () => output,
    request,
    exited,
    async kill() {
      if (exitCode === undefined) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}
