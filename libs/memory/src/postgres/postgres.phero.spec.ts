/**
 * Sharing the messages table with writers that know nothing of our sessions and snapshots tables:
 * Phero (rows shaped exactly as its Go code writes them: every field, `null` lists) and plain SQL.
 * The migrations adopt a table Phero created, with its rows; counts, `updatedAt` and snapshots stay
 * true when rows are inserted or deleted behind the store's back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { decodeMessages, userMessage, type SessionInfo } from '@agent-memory/memory';
import {
  AdoptMessagesTable1764770000000,
  postgresBackend,
  type PostgresBackend,
} from '@agent-memory/memory/postgres';
import { conversation, texts } from '@agent-memory/conformance';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { fixturePath } from '@agent-memory/test-support/paths';

const FIXTURES = fixturePath('phero');
/** Nine messages written by Phero's own jsonfile store: reasoning, tools, images, `Parts: null`. */
const PHERO_SESSION = JSON.parse(
  readFileSync(join(FIXTURES, 'phero-jsonfile-session.json'), 'utf8'),
) as Record<string, unknown>[];
const PHERO_TEXT = JSON.parse(readFileSync(join(FIXTURES, 'text.json'), 'utf8')) as Record<
  string,
  unknown
>[];

const schemas = new TestSchemas('pgphero');
let dataSource: DataSource;
const backends: PostgresBackend[] = [];

beforeAll(async () => {
  dataSource = await new DataSource({
    type: 'postgres',
    url: schemas.url,
    poolSize: 4,
  }).initialize();
});
afterAll(async () => {
  for (const backend of backends) await backend.close();
  await dataSource.destroy();
  await schemas.cleanup();
});

async function backendOn(table: string, pruneCompacted = false): Promise<PostgresBackend> {
  const backend = await postgresBackend({ dataSource, table, pruneCompacted });
  backends.push(backend);
  return backend;
}

/** The table exactly as Phero's `EnsureSchema` creates it. */
async function createPheroTable(table: string): Promise<void> {
  const [schema, base] = table.split('.') as [string, string];
  await schemas.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await schemas.query(
    `CREATE TABLE IF NOT EXISTS ${table} (
       session_id text NOT NULL,
       seq bigserial NOT NULL,
       message jsonb NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (session_id, seq)
     )`,
  );
  await schemas.query(
    `CREATE INDEX IF NOT EXISTS "${base}_session_seq_idx" ON ${table} (session_id, seq)`,
  );
}

/** What Phero's `Save` does: one plain INSERT per message, in order. */
async function pheroSave(
  table: string,
  session: string,
  messages: Record<string, unknown>[],
): Promise<void> {
  for (const message of messages) {
    await schemas.query(`INSERT INTO ${table} (session_id, message) VALUES ($1, $2::jsonb)`, [
      session,
      JSON.stringify(message),
    ]);
  }
}

/** What Phero's `Clear` does: delete the session's rows, nothing else. */
async function pheroClear(table: string, session: string): Promise<void> {
  await schemas.query(`DELETE FROM ${table} WHERE session_id = $1`, [session]);
}

function counts(info: SessionInfo | null) {
  return info && { messages: info.messages, stored: info.stored, hasSnapshot: info.hasSnapshot };
}

describe('rows we write', () => {
  it('hold one message each, as a JSON object Phero decodes (its field names match ours case-insensitively)', async () => {
    const table = schemas.nextTable();
    const backend = await backendOn(table);
    const messages = decodeMessages(PHERO_SESSION);
    await (await backend.open('ours')).save(messages);
    const rows = await schemas.query<{ message: unknown }>(
      `SELECT message FROM ${table} WHERE session_id = 'ours' ORDER BY seq`,
    );
    expect(rows.map((row) => row.message)).toEqual(JSON.parse(JSON.stringify(messages)));
    // Every Go field Phero sets has its counterpart, compared as Go's decoder does.
    const goFields = Object.keys(PHERO_SESSION[0]!).map((k) => k.toLowerCase());
    for (const row of rows) {
      for (const key of Object.keys(row.message as object)) {
        expect(goFields).toContain(key.toLowerCase());
      }
    }
  });
});

describe('a messages table Phero created', () => {
  it('is adopted by the migrations with every row kept, and its sessions load and list', async () => {
    const table = schemas.nextTable();
    await createPheroTable(table);
    await pheroSave(table, 'phero-a', PHERO_SESSION);
    await pheroSave(table, 'phero-b', PHERO_TEXT);
    const before = await schemas.query<{ session_id: string; seq: string; message: unknown }>(
      `SELECT session_id, seq, message FROM ${table} ORDER BY seq`,
    );

    const backend = await backendOn(table);
    expect(await backend.migrationsApplied()).toBe(true);
    expect(
      await schemas.query(`SELECT session_id, seq, message FROM ${table} ORDER BY seq`),
    ).toEqual(before);
    const page = await backend.list({});
    expect(page.items.map((i) => [i.id, i.messages, i.stored]).sort()).toEqual([
      ['phero-a', 9, 9],
      ['phero-b', PHERO_TEXT.length, PHERO_TEXT.length],
    ]);
    const memory = await backend.open('phero-a');
    expect((await memory.loadSnapshot()).tail.map((e) => e.message)).toEqual(
      decodeMessages(PHERO_SESSION),
    );
    expect(await memory.retrieve()).toEqual(decodeMessages(PHERO_SESSION));
    // Phero's own index is still there, and its rows can go on growing through our store.
    const [{ idx }] = await schemas.query<{ idx: string | null }>('SELECT to_regclass($1) AS idx', [
      `${table}_session_seq_idx`,
    ]);
    expect(idx).not.toBeNull();
    await memory.save([userMessage('from us')]);
    expect(counts(await backend.inspect('phero-a'))).toEqual({
      messages: 10,
      stored: 10,
      hasSnapshot: false,
    });
  });

  it('is adopted the same when our tables are there already and rows were written while the counters were not kept', async () => {
    const table = schemas.nextTable();
    const backend = await backendOn(table);
    await (await backend.open('ours')).save(conversation(3));
    // An earlier release: no triggers, the adoption migration not recorded. Phero then writes into
    // our session and a new one.
    for (const trigger of ['agent_memory_added', 'agent_memory_removed', 'agent_memory_emptied']) {
      await schemas.query(`DROP TRIGGER ${trigger} ON ${table}`);
    }
    await schemas.query(`DELETE FROM ${table}_migrations WHERE name = $1`, [
      AdoptMessagesTable1764770000000.migrationName,
    ]);
    await pheroSave(table, 'ours', PHERO_TEXT);
    await pheroSave(table, 'phero-c', PHERO_SESSION);
    expect(counts(await backend.inspect('phero-c'))).toBeNull();

    const again = await backendOn(table);
    expect(counts(await again.inspect('ours'))).toEqual({
      messages: 3 + PHERO_TEXT.length,
      stored: 3 + PHERO_TEXT.length,
      hasSnapshot: false,
    });
    expect(counts(await again.inspect('phero-c'))).toEqual({
      messages: 9,
      stored: 9,
      hasSnapshot: false,
    });
    expect((await (await again.open('ours')).retrieve()).length).toBe(3 + PHERO_TEXT.length);
  });

  it('refuses, naming the columns, a table of another shape, and changes nothing', async () => {
    const table = schemas.nextTable();
    const [schema] = table.split('.');
    await schemas.query(`CREATE SCHEMA "${schema}"`);
    await schemas.query(`CREATE TABLE ${table} (session_id text, seq integer, body text)`);
    await schemas.query(`INSERT INTO ${table} VALUES ('x', 1, 'hello')`);
    await expect(postgresBackend({ dataSource, table })).rejects.toThrow(
      /has another shape.*seq is integer, not bigint; message jsonb is missing; created_at timestamp with time zone is missing/,
    );
    expect(await schemas.query(`SELECT * FROM ${table}`)).toEqual([
      { session_id: 'x', seq: 1, body: 'hello' },
    ]);
    const [{ sessions }] = await schemas.query<{ sessions: string | null }>(
      'SELECT to_regclass($1) AS sessions',
      [`${table}_sessions`],
    );
    expect(sessions).toBeNull();
  });
});

describe('counters with other writers on the messages table', () => {
  let table: string;
  let backend: PostgresBackend;
  beforeAll(async () => {
    table = schemas.nextTable();
    backend = await backendOn(table);
  });

  it('count rows inserted and deleted with plain SQL, and move updatedAt', async () => {
    const memory = await backend.open('plain');
    await memory.save(conversation(4));
    await schemas.query(
      `UPDATE ${table}_sessions SET updated_at = '2020-01-01T00:00:00Z' WHERE session_id = 'plain'`,
    );
    // One statement, two sessions: both are counted.
    await schemas.query(
      `INSERT INTO ${table} (session_id, message) VALUES ('plain', $1), ('plain', $1), ('other', $1)`,
      [JSON.stringify(PHERO_TEXT[0])],
    );
    const afterInsert = await backend.inspect('plain');
    expect(counts(afterInsert)).toEqual({ messages: 6, stored: 6, hasSnapshot: false });
    expect(afterInsert!.updatedAt > '2020-01-01T00:00:00.000Z').toBe(true);
    expect(counts(await backend.inspect('other'))).toEqual({
      messages: 1,
      stored: 1,
      hasSnapshot: false,
    });
    expect((await backend.list({})).items[0]!.id).toMatch(/^(plain|other)$/);

    await schemas.query(
      `DELETE FROM ${table} WHERE session_id = 'plain' AND seq = (SELECT min(seq) FROM ${table} WHERE session_id = 'plain')`,
    );
    expect(counts(await backend.inspect('plain'))).toEqual({
      messages: 6,
      stored: 5,
      hasSnapshot: false,
    });
    expect(await memory.retrieve()).toHaveLength(5);
  });

  it("after Phero's Clear, a snapshot no longer shapes retrieve and the counts are true", async () => {
    const memory = await backend.open('cleared');
    await memory.save(conversation(6));
    await memory.setMeta('title', 'kept');
    const { tail } = await memory.loadSnapshot();
    await memory.saveSnapshot({ summary: 'old summary' }, tail[3]!.cursor, null);
    expect(counts(await backend.inspect('cleared'))).toEqual({
      messages: 6,
      stored: 6,
      hasSnapshot: true,
    });

    await pheroClear(table, 'cleared');
    expect(await memory.retrieve()).toEqual([]);
    expect(await memory.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
    expect(counts(await backend.inspect('cleared'))).toEqual({
      messages: 0,
      stored: 0,
      hasSnapshot: false,
    });
    // Phero knows no metadata: it is left alone.
    expect(await memory.meta()).toEqual({ title: 'kept' });

    await pheroSave(table, 'cleared', PHERO_TEXT.slice(0, 1));
    expect(texts(await memory.retrieve())).toEqual([
      decodeMessages(PHERO_TEXT.slice(0, 1))[0]!.parts[0]!.text,
    ]);
    expect(counts(await backend.inspect('cleared'))).toMatchObject({ messages: 1, stored: 1 });
  });

  it('keep a pruning snapshot that covers every row: our own prune is no Clear', async () => {
    const pruning = await backendOn(table, true);
    const memory = await pruning.open('pruned');
    await memory.save(conversation(4));
    const { tail } = await memory.loadSnapshot();
    await memory.saveSnapshot({ summary: 'all of it' }, tail[3]!.cursor, null);
    expect(counts(await pruning.inspect('pruned'))).toEqual({
      messages: 4,
      stored: 0,
      hasSnapshot: true,
    });
    const context = await memory.retrieve();
    expect(context).toHaveLength(1);
    expect(texts(context)[0]).toContain('all of it');
  });

  it('stay true with our saves and plain SQL inserts into one session at once', async () => {
    const session = 'mixed';
    const ours = await Promise.all([1, 2, 3, 4].map(() => backend.open(session)));
    await Promise.all([
      ...ours.map(async (memory, w) => {
        for (let i = 0; i < 25; i++) await memory.save(conversation(2, w * 100 + i * 2));
      }),
      (async () => {
        for (let i = 0; i < 50; i++) await pheroSave(table, session, PHERO_TEXT.slice(0, 1));
      })(),
    ]);
    const [{ n }] = await schemas.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1`,
      [session],
    );
    expect(n).toBe(4 * 25 * 2 + 50);
    expect(counts(await backend.inspect(session))).toEqual({
      messages: n,
      stored: n,
      hasSnapshot: false,
    });
  });

  it('empty every session on TRUNCATE', async () => {
    const own = schemas.nextTable();
    const truncated = await backendOn(own);
    const memory = await truncated.open('t');
    await memory.save(conversation(3));
    await memory.saveSnapshot(
      { summary: 's' },
      (await memory.loadSnapshot()).tail[1]!.cursor,
      null,
    );
    await schemas.query(`TRUNCATE ${own}`);
    expect(counts(await truncated.inspect('t'))).toEqual({
      messages: 0,
      stored: 0,
      hasSnapshot: false,
    });
    expect(await memory.retrieve()).toEqual([]);
  });
});
