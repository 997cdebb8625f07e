/**
 * `npm start` as a user runs it (`node scripts/start.mjs`, no build step): it prints the dashboard
 * URL with a random token when MEMORY_ADMIN_TOKEN is unset, that token opens `/api`, SIGTERM stops
 * it cleanly; a bad environment stops it with every problem named.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@agent-memory/test-support/services';

const START_SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'start.mjs');

function run(
  env: Record<string, string>,
  cwd: string,
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !key.startsWith('MEMORY_') && !['PORT', 'HOST', 'NATS_URL', 'DATABASE_URL'].includes(key),
    ),
  );
  const child = spawn(process.execPath, [START_SCRIPT], {
    cwd,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, output: () => output, exited };
}

async function waitForOutput(
  output: () => string,
  pattern: RegExp,
  exited: Promise<unknown>,
  timeoutMs = 25000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  let stopped = false;
  void exited.then(() => (stopped = true));
  while (Date.now() < deadline) {
    const match = pattern.exec(output());
    if (match) return match;
    if (stopped) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${pattern} in the output:\n${output()}`);
}

describe('npm start', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-start-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the dashboard URL with a random token that opens /api, and stops on SIGTERM', async () => {
    const server = run({ PORT: '0' }, dir);
    try {
      const [, url, token] = await waitForOutput(
        server.output,
        /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([A-Za-z0-9_-]{20,})/,
        server.exited,
      );
      expect((await fetch(`${url}/api/sessions`)).status).toBe(401);
      const listed = await fetch(`${url}/api/sessions`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual({ items: [], next: null });
      // The embedded default keeps sessions under ./data/sessions of the working folder.
      const saved = await fetch(`${url}/api/sessions/first/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        }),
      });
      expect(saved.status).toBe(201);
      expect(existsSync(join(dir, 'data', 'sessions', 'first.json'))).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).not.toBe(1);
  });

  it('does not print a token that was given', async () => {
    const server = run({ PORT: '0', MEMORY_ADMIN_TOKEN: 'a-given-token-0123456789' }, dir);
    try {
      await waitForOutput(server.output, /Dashboard: http:\/\/127\.0\.0\.1:\d+\//, server.exited);
      expect(server.output()).not.toContain('a-given-token-0123456789');
      expect(server.output()).not.toContain('?token=');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('refuses a bad environment, naming every bad variable, with exit code 1', async () => {
    const server = run(
      { MEMORY_BACKEND: 'mongo', PORT: 'eighty', COMPACT_AT_TOKENS: '-5', COMPACTION_MODE: 'nats' },
      dir,
    );
    expect(await server.exited).toBe(1);
    const output = server.output();
    expect(output).toContain('invalid configuration');
    expect(output).toMatch(/MEMORY_BACKEND="mongo" is not one of simple, jsonfile, postgres, nats/);
    expect(output).toMatch(/PORT="eighty"/);
    expect(output).toMatch(/COMPACT_AT_TOKENS="-5"/);
    expect(output).toMatch(/NATS_URL is required with COMPACTION_MODE=nats/);
  });

  it('stops with exit code 1 and says why when the backend cannot be reached', async () => {
    const port = await freePort();
    const server = run(
      {
        PORT: '0',
        MEMORY_BACKEND: 'nats',
        NATS_URL: `nats://127.0.0.1:${port}`,
        MEMORY_NATS_BUCKET: 'never_created',
      },
      dir,
    );
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/the admin server could not start: .*NATS/);
  });
});
