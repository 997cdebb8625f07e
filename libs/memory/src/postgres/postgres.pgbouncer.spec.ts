/**
 * The store behind PgBouncer in transaction mode (the pooler hands each transaction whichever of
 * its two server connections is free): with `preparedStatements: false`, concurrent writers of one
 * session keep their turns contiguous, snapshots swap, counts and listing stay right, and the
 * LangGraph checkpointer's statements run unnamed too. Migrations run against PostgreSQL directly,
 * as the README says.
 */
import { assistantMessage, userMessage } from '@agent-memory/memory';
import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import { texts } from '@agent-memory/conformance';
import { MemoryCheckpointSaver } from '@agent-memory/memory/langgraph';
import { HumanMessage } from '@langchain/core/messages';
import { testAgentGraph } from '@agent-memory/test-support/langgraph-graph';
import { startPgBouncer, type PgBouncer } from '@agent-memory/test-support/pgbouncer';
import { TestSchemas } from '@agent-memory/test-support/postgres';

const schemas = new TestSchemas('pgbouncer');
let bouncer: PgBouncer;
let backend: PostgresBackend;
let table: string;

beforeAll(async () => {
  table = schemas.nextTable();
  await (await postgresBackend({ url: schemas.url, table })).close();
  bouncer = await startPgBouncer(schemas.url, 2);
  backend = await postgresBackend({
    url: bouncer.url,
    table,
    ensureSchema: false,
    preparedStatements: false,
    poolSize: 6,
  });
}, 30_000);
afterAll(async () => {
  await backend?.close();
  await bouncer?.dispose();
  await schemas.cleanup();
});

describe('PostgresMemory behind PgBouncer in transaction mode, preparedStatements: false', () => {
  it('keeps 6 writers x 20 turns on one session contiguous, and counts them', async () => {
    const writers = await Promise.all(Array.from({ length: 6 }, () => backend.open('bounced')));
    await Promise.all(
      writers.map(async (memory, w) => {
        for (let t = 0; t < 20; t++) {
          await memory.save([userMessage(`w${w}-q${t}`), assistantMessage(`w${w}-a${t}`)]);
        }
      }),
    );
    const got = texts(await writers[0]!.retrieve());
    expect(got).toHaveLength(240);
    for (let i = 0; i < got.length; i += 2) expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
    for (let w = 0; w < 6; w++) {
      expect(got.filter((t) => t.startsWith(`w${w}-q`))).toEqual(
        Array.from({ length: 20 }, (_, t) => `w${w}-q${t}`),
      );
    }
    expect(await backend.inspect('bounced')).toMatchObject({ messages: 240, stored: 240 });
  });

  it('serves writers of 6 sessions at once, each on its own client connection', async () => {
    // Named statements break here: each client connection prepares them once, on whichever server
    // connection it had; the pooler then runs its next statement on the other one.
    const sessions = await Promise.all(
      Array.from({ length: 6 }, (_, s) => backend.open(`parallel-${s}`)),
    );
    await Promise.all(
      sessions.map(async (memory) => {
        for (let t = 0; t < 10; t++) {
          await memory.save([userMessage(`q${t}`), assistantMessage(`a${t}`)]);
          expect(await memory.retrieve()).toHaveLength(2 * (t + 1));
        }
      }),
    );
    for (let s = 0; s < 6; s++) {
      expect(await backend.inspect(`parallel-${s}`)).toMatchObject({ messages: 20, stored: 20 });
    }
  });

  it('swaps snapshots, sets metadata, lists and reports the schema ready', async () => {
    const memory = await backend.open('snap');
    await memory.save([userMessage('q1'), assistantMessage('a1'), userMessage('q2')]);
    const { tail } = await memory.loadSnapshot();
    const stored = await memory.saveSnapshot({ summary: 'asked q1' }, tail[1]!.cursor, null);
    await expect(
      memory.saveSnapshot({ summary: 'stale' }, tail[2]!.cursor, null),
    ).rejects.toMatchObject({ code: 'SNAPSHOT_CONFLICT' });
    expect((await memory.loadSnapshot()).snapshot).toEqual(stored);
    await memory.setMeta('title', 'through the pooler');
    const page = await backend.list({ search: 'pooler' });
    expect(page.items.map((i) => [i.id, i.hasSnapshot, i.stored])).toEqual([['snap', true, 3]]);
    expect(await backend.schemaStatus()).toEqual({ ready: true, missing: [] });
  });

  it('keeps LangGraph threads of 4 graphs running at once, each on its own client connection', async () => {
    // The checkpointer's statements would be prepared by name on one server connection and run
    // on the other one by the pooler, as the store's would: it follows preparedStatements: false.
    const saver = await MemoryCheckpointSaver.open(backend);
    const graph = testAgentGraph(saver);
    await Promise.all(
      Array.from({ length: 4 }, async (_, g) => {
        const config = { configurable: { thread_id: `graph-${g}` } };
        for (const q of ['one', 'two', 'three']) {
          await graph.invoke({ messages: [new HumanMessage(q)] }, config);
        }
      }),
    );
    for (let g = 0; g < 4; g++) {
      const tuple = await saver.getTuple({ configurable: { thread_id: `graph-${g}` } });
      expect(tuple?.checkpoint.channel_values.messages).toHaveLength(12);
      expect(await backend.inspect(`graph-${g}`)).toMatchObject({ messages: 12, stored: 12 });
    }
  });
});
