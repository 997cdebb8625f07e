/**
 * `agent-memory export` and `import` as a user runs them: the command in its own process, JSON
 * Lines through its stdout and stdin, the store chosen by flags or the server's variables.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assistantMessage,
  jsonFileBackend,
  userMessage,
  type MemoryBackend,
  type SessionLine,
} from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';

const REPO_ROOT = join(__dirname, '../../../..');
const CLI = join(__dirname, 'agent-memory.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with `args`, `env` added to a clean environment, and `input` on stdin. */
function agentMemory(args: string[], env: Record<string, string> = {}, input = ''): Promise<Run> {
  const { DATABASE_URL: _, MEMORY_BACKEND: __, MEMORY_DIR: ___, ...base } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...base, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const schemas = new TestSchemas('pgcli');
const root = mkdtempSync(join(tmpdir(), 'agent-memory-cli-transfer-'));
const opened: MemoryBackend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((backend) => backend.close()));
  await schemas.cleanup();
  rmSync(root, { recursive: true, force: true });
});

it('moves a folder of session files into PostgreSQL and back out, and a second import skips all', async () => {
  const dir = join(root, 'sessions');
  const files = jsonFileBackend({ dir });
  opened.push(files);
  const first = await files.open('first');
  const saved = await first.save([userMessage('task'), assistantMessage('ok')]);
  await first.saveSnapshot({ summary: 'the task' }, saved.last!, null);
  await first.save([userMessage('more')]);
  await first.setMeta('resource', 'ann');
  await (await files.open('second')).save([userMessage('hello')]);

  const exported = await agentMemory(['export', '--backend', 'jsonfile', '--dir', dir]);
  expect(exported).toMatchObject({ code: 0, stderr: '' });
  const lines = exported.stdout.trimEnd().split('\n');
  expect(lines.map((line) => (JSON.parse(line) as SessionLine).id).sort()).toEqual([
    'first',
    'second',
  ]);

  const table = schemas.nextTable();
  const pg = { DATABASE_URL: schemas.url, MEMORY_PG_TABLE: table };
  const imported = await agentMemory(['import'], pg, exported.stdout);
  expect(imported).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(imported.stdout)).toEqual({ imported: 2, skipped: 0 });
  const again = await agentMemory(['import'], pg, exported.stdout);
  expect(JSON.parse(again.stdout)).toEqual({ imported: 0, skipped: 2 });

  const database = await postgresBackend({ url: schemas.url, table });
  opened.push(database);
  const moved = await database.open('first');
  expect((await moved.retrieve()).map((m) => m.parts[0]!.text)).toEqual([
    'Summary of the conversation so far:\nthe task',
    'more',
  ]);

  const back = await agentMemory(['export', '--resource', 'ann'], pg);
  expect(back.code).toBe(0);
  const [only, ...none] = back.stdout.trimEnd().split('\n');
  expect(none).toEqual([]);
  expect(JSON.parse(only!)).toMatchObject({ id: 'first', meta: { resource: 'ann' } });
}, 60_000);

it('stops at a bad line with exit code 1, naming the line and the field, after importing the lines before', async () => {
  const dir = join(root, 'bad');
  const good = JSON.stringify({ id: 'ok', entries: [{ cursor: 1, message: userMessage('hi') }] });
  const bad = JSON.stringify({
    id: 'broken',
    entries: [{ cursor: 1, message: { role: 'robot', parts: [] } }],
  });
  const run = await agentMemory(
    ['import', '--backend', 'jsonfile', '--dir', dir],
    {},
    `${good}\n\n${bad}\n`,
  );
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('import line 3, field entries[0].message.role');
  const files = jsonFileBackend({ dir });
  opened.push(files);
  expect(await files.inspect('ok')).not.toBeNull();
  expect(await files.inspect('broken')).toBeNull();
}, 30_000);

it('names what is missing when no store is given (exit code 2)', async () => {
  const run = await agentMemory(['export']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    'no store: pass --backend jsonfile|postgres|nats or set MEMORY_BACKEND',
  );
});
