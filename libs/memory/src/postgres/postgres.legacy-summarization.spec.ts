import { types } from 'node:util';
import {
  SUMMARY_PREFIX,
  SnapshotsUnsupportedError,
  systemMessage,
  textContent,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { OpenAiCompatibleClient } from '@agent-memory/memory/compaction';
import {
  PostgresMemory,
  postgresBackend,
  type PostgresBackend,
} from '@agent-memory/memory/postgres';
import { conversation, texts } from '@agent-memory/conformance';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { TestSchemas } from '@agent-memory/test-support/postgres';

const schemas = new TestSchemas('pglegacy');
const opened: PostgresBackend[] = [];
let llm: FakeLlm;
let counter = 0;
const newId = () => `legacy-${process.pid}-${++counter}`;

beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.close();
  await schemas.cleanup();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.close()));
});

async function backendWithSummarization(errors: unknown[] = []): Promise<PostgresBackend> {
  const backend = await postgresBackend({
    url: schemas.url,
    table: schemas.nextTable(),
    summarization: {
      llm: new OpenAiCompatibleClient({
        baseUrl: llm.baseUrl,
        apiKey: '',
        model: 'test',
        timeoutMs: 10_000,
      }),
      threshold: 4,
      size: 2,
      onError: (e) => errors.push(e),
    },
  });
  opened.push(backend);
  return backend;
}

/** The messages in the table's rows for `id`, as any reader of the table (Phero too) sees them. */
async function rawRows(backend: PostgresBackend, id: string): Promise<string[]> {
  const rows = await schemas.query<{ message: Message }>(
    `SELECT message FROM ${backend.tables.messages} WHERE session_id = $1 ORDER BY seq`,
    [id],
  );
  return rows.map((row) => textContent(row.message));
}

/** Another writer of the same table, without the option. */
async function plainReplica(of: PostgresBackend): Promise<PostgresBackend> {
  const backend = await postgresBackend({ url: schemas.url, table: of.tables.table });
  opened.push(backend);
  return backend;
}

describe('PostgresMemory with the deprecated summarization option', () => {
  it('replaces the oldest messages by a summary system message once the threshold is reached', async () => {
    const backend = await backendWithSummarization();
    const id = newId();
    const memory = await backend.open(id);
    await memory.save(conversation(3));
    expect(llm.requests).toHaveLength(0);
    const before = (await memory.loadSnapshot()).tail;

    llm.reply('they said hello');
    await memory.save(conversation(1, 3));
    const sent = JSON.stringify(llm.requests.at(-1)!.body.messages);
    expect(sent).toContain('u0');
    expect(sent).toContain('a1');
    expect(sent).not.toContain('u2');

    expect(await memory.retrieve()).toEqual([
      systemMessage(`${SUMMARY_PREFIX}they said hello`),
      ...conversation(2, 2),
    ]);
    // The summary is a snapshot up to the last summarised message; the rows it covers are gone.
    const { snapshot, tail } = await memory.loadSnapshot();
    expect(snapshot).toMatchObject({ summary: 'they said hello', upTo: before[1]!.cursor });
    expect(tail.map((e) => e.cursor)).toEqual([before[2]!.cursor, before[2]!.cursor + 1]);
    expect(await rawRows(backend, id)).toEqual(['u2', 'a3']);
    expect(await backend.inspect(id)).toMatchObject({ messages: 4, stored: 2, hasSnapshot: true });
  });

  it('opens the store itself: a PostgresMemory, no proxy around it', async () => {
    const memory = await (await backendWithSummarization()).open(newId());
    expect(memory).toBeInstanceOf(PostgresMemory);
    expect(types.isProxy(memory)).toBe(false);
  });

  it('keeps rows another writer saved while the LLM was answering', async () => {
    const backend = await backendWithSummarization();
    const other = await (await plainReplica(backend)).open('shared');
    const memory = await backend.open('shared');
    await memory.save(conversation(3));

    const held = llm.holdNext('early part');
    const requestsBefore = llm.requests.length;
    const saving = memory.save(conversation(1, 3));
    await llm.waitForRequests(requestsBefore + 1);
    // Between plan and swap: another process appends (the session row is not locked meanwhile).
    await other.save([userMessage('meanwhile')]);
    held.release();
    await saving;

    expect(texts(await memory.retrieve())).toEqual([
      `${SUMMARY_PREFIX}early part`,
      'u2',
      'a3',
      'meanwhile',
    ]);
    expect(await backend.inspect('shared')).toMatchObject({ messages: 5, stored: 3 });
  });

  it('skips the swap when the planned messages are no longer the oldest kept ones', async () => {
    const backend = await backendWithSummarization();
    const memory = await backend.open(newId());
    await memory.save(conversation(3));
    const held = llm.holdNext('stale');
    const requestsBefore = llm.requests.length;
    const saving = memory.save(conversation(1, 3));
    await llm.waitForRequests(requestsBefore + 1);
    await memory.clear();
    await memory.save([userMessage('fresh')]);
    held.release();
    await saving;
    expect(texts(await memory.retrieve())).toEqual(['fresh']);
  });

  it('keeps a session cleared and refilled while the LLM was answering', async () => {
    const errors: unknown[] = [];
    const backend = await backendWithSummarization(errors);
    const id = newId();
    const memory = await backend.open(id);
    const other = await (await plainReplica(backend)).open(id);
    await memory.save(conversation(3));
    const held = llm.holdNext('stale');
    const requestsBefore = llm.requests.length;
    const saving = memory.save(conversation(1, 3));
    await llm.waitForRequests(requestsBefore + 1);
    await other.clear();
    await other.save([userMessage('n0'), userMessage('n1'), userMessage('n2')]);
    held.release();
    await saving;
    expect(texts(await memory.retrieve())).toEqual(['n0', 'n1', 'n2']);
    expect((await memory.loadSnapshot()).snapshot).toBeNull();
    expect(errors).toEqual([]);
  });

  it('keeps the saved messages and reports the error when the LLM fails', async () => {
    const errors: unknown[] = [];
    const backend = await backendWithSummarization(errors);
    const memory = await backend.open(newId());
    llm.failNext(500, 'overloaded');
    await memory.save(conversation(4));
    expect(errors).toHaveLength(1);
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1', 'u2', 'a3']);
    // The next save tries again.
    llm.reply('second try');
    await memory.save(conversation(1, 4));
    expect(texts(await memory.retrieve())).toEqual([
      `${SUMMARY_PREFIX}second try`,
      'u2',
      'a3',
      'u4',
    ]);
  });

  it('refuses snapshots with SnapshotsUnsupportedError', async () => {
    const backend = await backendWithSummarization();
    const memory = await backend.open(newId());
    await memory.save(conversation(2));
    const { tail } = await memory.loadSnapshot();
    await expect(memory.saveSnapshot({ summary: 's' }, tail[0]!.cursor, null)).rejects.toThrow(
      SnapshotsUnsupportedError,
    );
  });
});
