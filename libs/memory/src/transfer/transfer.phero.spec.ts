/**
 * Phero's data moves into our stores: a folder of session files Phero's jsonfile store wrote, and
 * the messages table Phero's PostgreSQL store created (adopted by our migrations), each exported
 * and imported elsewhere with every message as Phero saved it and no save time (Phero keeps none
 * in its files).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeMessages,
  exportSessions,
  importSessions,
  jsonFileBackend,
  type MemoryBackend,
  type SessionLine,
} from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { natsBackend } from '@agent-memory/memory/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { fixturePath } from '@agent-memory/test-support/paths';
import { testNatsUrl } from '@agent-memory/test-support/services';

const PHERO_FILE = fixturePath('phero', 'phero-jsonfile-session.json');
const PHERO_TEXT_FILE = fixturePath('phero', 'text.json');
const pheroMessages = (file: string) =>
  decodeMessages(JSON.parse(readFileSync(file, 'utf8')) as unknown[]);

const schemas = new TestSchemas('pgtransfer');
const buckets = new TestBuckets('transfer');
const root = mkdtempSync(join(tmpdir(), 'agent-memory-transfer-phero-'));
const opened: MemoryBackend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((backend) => backend.close()));
  await schemas.cleanup();
  await buckets.cleanup();
  rmSync(root, { recursive: true, force: true });
});

async function exported(backend: MemoryBackend): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of exportSessions(backend)) lines.push(line);
  return lines;
}

async function messagesOf(backend: MemoryBackend, id: string) {
  return (await (await backend.open(id)).entries()).map((entry) => entry.message);
}

it("moves a folder of Phero's session files into PostgreSQL, leaving the files as they were", async () => {
  const dir = join(root, 'phero-sessions');
  mkdirSync(dir);
  copyFileSync(PHERO_FILE, join(dir, 'phero-a.json'));
  copyFileSync(PHERO_TEXT_FILE, join(dir, 'phero-b.json'));
  const source = await jsonFileBackend({ dir });
  const target = await postgresBackend({ url: schemas.url, table: schemas.nextTable() });
  opened.push(source, target);

  const lines = await exported(source);
  const sessions = lines.map((line) => JSON.parse(line) as SessionLine);
  expect(sessions.map((s) => s.id).sort()).toEqual(['phero-a', 'phero-b']);
  for (const session of sessions) {
    expect(session.snapshot).toBeNull();
    for (const entry of session.entries) expect(entry).not.toHaveProperty('savedAt');
  }
  expect(await importSessions(target, lines)).toEqual({ imported: 2, skipped: 0 });
  expect(await messagesOf(target, 'phero-a')).toEqual(pheroMessages(PHERO_FILE));
  expect(await messagesOf(target, 'phero-b')).toEqual(pheroMessages(PHERO_TEXT_FILE));
  expect(readFileSync(join(dir, 'phero-a.json'))).toEqual(readFileSync(PHERO_FILE));
  expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 2 });
});

it("moves the rows of Phero's PostgreSQL table into NATS", async () => {
  const table = schemas.nextTable();
  const [schema] = table.split('.') as [string];
  await schemas.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  // The table exactly as Phero's `EnsureSchema` creates it, and its `Save`: one INSERT a message.
  await schemas.query(
    `CREATE TABLE ${table} (session_id text NOT NULL, seq bigserial NOT NULL,
       message jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (session_id, seq))`,
  );
  const raw = JSON.parse(readFileSync(PHERO_FILE, 'utf8')) as unknown[];
  for (const message of raw) {
    await schemas.query(`INSERT INTO ${table} (session_id, message) VALUES ($1, $2::jsonb)`, [
      'from-go',
      JSON.stringify(message),
    ]);
  }
  const source = await postgresBackend({ url: schemas.url, table });
  const target = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
  opened.push(source, target);

  const lines = await exported(source);
  expect(await importSessions(target, lines)).toEqual({ imported: 1, skipped: 0 });
  expect(await messagesOf(target, 'from-go')).toEqual(pheroMessages(PHERO_FILE));
  expect(await importSessions(target, lines)).toEqual({ imported: 0, skipped: 1 });
});
