/**
 * `agent-memory export` and `import` as a user runs them: the command in its own process, JSON
 * Lines through its stdout and stdin, the store chosen by flags or the server's variables.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

import { REPO_ROOT, runAgentMemory } from '@agent-memory/test-support/agent-memory-cli';

/** Hides `typeorm`, `pg` and `nats` from the command, as where they are not installed. */
const HIDE_DRIVERS = ['-r', join(REPO_ROOT, 'test/support/hide-packages.hook.ts')];

/** Positional form of {@link runAgentMemory}, as the cases below call it. */
const agentMemory = (
  args: string[],
  env: Record<string, string> = {},
  input = '',
  nodeArgs: string[] = [],
) => runAgentMemory(args, { env, input, nodeArgs });

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
  const pg = { MEMORY_BACKEND: 'postgres', DATABASE_URL: schemas.url, MEMORY_PG_TABLE: table };
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

it("chooses the store with the server's defaults: the JSON files of ./data/sessions, even with a database URL set", async () => {
  const run = await agentMemory(['export'], { DATABASE_URL: schemas.url });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`the folder "${join(REPO_ROOT, 'data/sessions')}"`);
  const unknown = await agentMemory(['export', '--backend', 'simple']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown backend "simple"');
});

describe('export fails loudly and only reads', () => {
  it('names a folder that does not exist, or holds no sessions, with exit code 1', async () => {
    const missing = join(root, 'no-such-folder');
    const run = await agentMemory(['export', '--backend', 'jsonfile', '--dir', missing]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`the folder "${missing}"`);
    expect(run.stderr).toContain('does not exist');

    const empty = join(root, 'empty-folder');
    mkdirSync(empty);
    const none = await agentMemory(['export', '--dir', empty]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toContain(`no sessions in the JSON-file folder "${empty}"`);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('makes a failed export piped into import fail too: an empty input imports nothing, exit 1', async () => {
    const run = await agentMemory(['import', '--dir', join(root, 'never-written')], {}, '');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('the input held no sessions: nothing was imported');
  });

  it('names every session it cannot read and exits 1; --skip-unreadable exports the rest, still naming them', async () => {
    const dir = join(root, 'damaged');
    const files = jsonFileBackend({ dir });
    opened.push(files);
    await (await files.open('good')).save([userMessage('fine')]);
    const headed = await files.open('headless-log');
    await headed.save([userMessage('one')]);
    await headed.setMeta('title', 'has a log file');
    await (await files.open('truncated')).save([userMessage('will be cut')]);
    for (const name of readdirSync(dir)) {
      if (name.startsWith('headless-log.log')) rmSync(join(dir, name));
    }
    const truncated = join(dir, 'truncated.json');
    writeFileSync(truncated, readFileSync(truncated, 'utf8').slice(0, 10));
    const before = folderState(dir);

    const run = await agentMemory(['export', '--dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot read session "headless-log"');
    expect(run.stderr).toContain('cannot read session "truncated"');
    expect(run.stderr).toContain('2 session(s) of the JSON-file folder');

    const skipping = await agentMemory(['export', '--dir', dir, '--skip-unreadable']);
    expect(skipping.code).toBe(0);
    expect(skipping.stderr).toContain('skipped session "headless-log"');
    expect(skipping.stderr).toContain('skipped session "truncated"');
    expect(
      skipping.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as SessionLine).id),
    ).toEqual(['good']);
    // Nothing written to the folder it read: no session index, no file changed.
    expect(folderState(dir)).toEqual(before);
  });

  it("leaves a folder of Phero's files as it was", async () => {
    const dir = join(root, 'phero');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'from-phero.json'),
      JSON.stringify([{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }]),
    );
    const before = folderState(dir);
    const run = await agentMemory(['export', '--dir', dir]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'from-phero' });
    expect(folderState(dir)).toEqual(before);
  });

  it("names a file whose messages are not in Phero's shape instead of exporting them empty", async () => {
    const dir = join(root, 'other-shape');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'chat-completions.json'),
      JSON.stringify([{ role: 'user', content: 'hi' }]),
    );
    const run = await agentMemory(['export', '--dir', dir]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('cannot read session "chat-completions"');
    expect(run.stderr).toContain('content');
  });
});

describe('drivers are loaded only for their store', () => {
  it('shows --help with typeorm, pg and nats missing', async () => {
    const run = await agentMemory(['--help'], {}, '', HIDE_DRIVERS);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('usage: agent-memory');
  });

  it('moves JSON files with typeorm, pg and nats missing', async () => {
    const dir = join(root, 'no-drivers');
    const imported = await agentMemory(
      ['import', '--dir', dir],
      {},
      JSON.stringify({ id: 'plain', entries: [{ cursor: 1, message: userMessage('hi') }] }) + '\n',
      HIDE_DRIVERS,
    );
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    const exported = await agentMemory(['export', '--dir', dir], {}, '', HIDE_DRIVERS);
    expect(exported).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(exported.stdout)).toMatchObject({ id: 'plain' });
  });

  it.each([
    [
      ['export', '--backend', 'postgres', '--url', 'postgres://127.0.0.1/x'],
      'postgres',
      /"(typeorm|pg)"/,
    ],
    [['migrate', '--url', 'postgres://127.0.0.1/x'], 'postgres', /"(typeorm|pg)"/],
    [['import', '--backend', 'nats', '--nats-url', 'nats://127.0.0.1:1'], 'nats', /"nats"/],
  ])('%j names the missing package in one line, exit code 1', async (args, store, name) => {
    const run = await agentMemory(args, {}, '', HIDE_DRIVERS);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`the ${store} store needs the package`);
    expect(lines[0]).toMatch(name);
    expect(lines[0]).toContain('npm install');
  });
});

/** Every file of `dir` with its bytes: what a read-only export must leave as it was. */
function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name)).toString('base64')]),
  );
}
