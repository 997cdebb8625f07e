/**
 * Real PostgreSQL and NATS servers for tests. The suite uses the machine's services when they run
 * (or the URLs in TEST_DATABASE_URL / TEST_NATS_URL); `test/run-jest.ts` starts throwaway ones when
 * they do not. Tests that stop a server mid-test start their own throwaway one here.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export function testDatabaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** A TCP port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

export async function isPortOpen(
  port: number,
  host = '127.0.0.1',
  timeoutMs = 500,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });
}

async function waitForPort(
  port: number,
  open: boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await isPortOpen(port)) === open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `${what} did not ${open ? 'start listening' : 'stop'} on port ${port} within ${timeoutMs} ms`,
  );
}

/** A server the test owns: it can be stopped and started again on the same port and data. */
export interface ThrowawayServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its data. */
  dispose(): Promise<void>;
}

/**
 * A server that can also be frozen: `pause()` stops the process (SIGSTOP) with its connections
 * open, so requests are sent and wait unanswered in its socket; `resume()` lets it read them.
 */
export interface PausableServer extends ThrowawayServer {
  /** Resolves once the process is stopped (a signal takes effect when it is next scheduled). */
  pause(): Promise<void>;
  resume(): void;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a Postgres binary as the `postgres` user when we are root (initdb refuses root). */
function pgCommand(binary: string, args: string[]): [string, string[]] {
  const path = join(PG_BIN, binary);
  return isRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

function runPg(binary: string, args: string[]): void {
  const [command, argv] = pgCommand(binary, args);
  execFileSync(command, argv, { stdio: 'pipe' });
}

/** A fresh PostgreSQL 15 cluster on its own port, tuned for tests (no fsync). Database `postgres`. */
export async function startThrowawayPostgres(
  opts: { port?: number } = {},
): Promise<ThrowawayServer> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(
      `PostgreSQL binaries not found in ${PG_BIN}: install postgresql-15 or set PG_BIN`,
    );
  }
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  if (isRoot) execFileSync('chown', ['postgres:postgres', dir]);
  runPg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  const server: ThrowawayServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      runPg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      await waitForPort(port, true, 15000, 'PostgreSQL');
    },
    async stop() {
      runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      await waitForPort(port, false, 15000, 'PostgreSQL');
    },
    async dispose() {
      if (await isPortOpen(port)) await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/**
 * A fresh nats-server with JetStream on its own port.
 * @param opts.maxPayload the server's max_payload in bytes (default 1 MiB).
 */
export async function startThrowawayNats(
  opts: { port?: number; maxPayload?: number } = {},
): Promise<PausableServer> {
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-nats-'));
  const config = join(dir, 'nats.conf');
  writeFileSync(
    config,
    [
      `host: 127.0.0.1`,
      `port: ${port}`,
      `jetstream { store_dir: "${join(dir, 'js')}" }`,
      opts.maxPayload ? `max_payload: ${opts.maxPayload}` : '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  const signal = (name: NodeJS.Signals) => {
    if (!child || child.exitCode !== null) throw new Error('nats-server is not running');
    child.kill(name);
  };
  const server: PausableServer = {
    url: `nats://127.0.0.1:${port}`,
    async pause() {
      signal('SIGSTOP');
      const pid = child!.pid!;
      const deadline = Date.now() + 5000;
      // The third field of /proc/<pid>/stat is the state: T once stopped.
      while (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'T') {
        if (Date.now() > deadline) throw new Error('nats-server did not stop on SIGSTOP');
        await delay(5);
      }
    },
    resume: () => signal('SIGCONT'),
    port,
    async start() {
      child = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
      const spawned = child;
      await Promise.race([
        waitForPort(port, true, 15000, 'nats-server'),
        new Promise((_, reject) =>
          spawned.once('error', (error) =>
            reject(new Error(`cannot run nats-server: ${error.message}`)),
          ),
        ),
      ]);
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
        running.kill('SIGCONT'); // a paused server handles SIGTERM only once it runs again
      });
      await waitForPort(port, false, 15000, 'nats-server');
    },
    async dispose() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
