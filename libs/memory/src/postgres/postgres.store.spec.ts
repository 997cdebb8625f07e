import { DataSource } from 'typeorm';
import { CorruptSessionError, userMessage } from '@agent-memory/memory';
import { PostgresMemory, postgresBackend } from '@agent-memory/memory/postgres';
import { conversation, texts } from '@agent-memory/conformance';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';

const schemas = new TestSchemas('pgstore');
const dataSource = useTestDataSource(schemas, { poolSize: 4 });

describe('PostgresMemory', () => {
  it('creates its schema and tables on first use of a DataSource the caller owns', async () => {
    const table = schemas.nextTable('chat');
    const memory = await PostgresMemory.open(dataSource, 'first-use', { table });
    await memory.save(conversation(2));
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1']);
    const backend = await postgresBackend({ dataSource, table });
    expect(await backend.migrationsApplied()).toBe(true);
    await backend.close();
    // The caller's DataSource stays open.
    expect(dataSource.isInitialized).toBe(true);
    expect(await (await backend.open('first-use')).meta()).toEqual({});
  });

  it('reports migrations as not applied on a table nobody migrated', async () => {
    const backend = await postgresBackend({
      dataSource,
      table: schemas.nextTable(),
      ensureSchema: false,
    });
    expect(await backend.migrationsApplied()).toBe(false);
    const memory = await backend.open('unmigrated');
    // The save's statement names the messages table first: a missing relation (42P01).
    await expect(memory.save(conversation(1))).rejects.toMatchObject({
      name: 'PostgresRequestError',
      pgCode: '42P01',
      message: expect.stringContaining('run the migrations'),
    });
  });

  it('reports a missing save procedure (tables older than its migration) and refuses saves until it exists', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const memory = await backend.open('older-tables');
    await memory.save(conversation(2));
    await dataSource.query(`DROP PROCEDURE ${backend.tables.functions.saveGroup}`);
    expect(await backend.schemaStatus()).toEqual({
      ready: false,
      missing: ['procedure conversation_memory_save_group'],
    });
    await expect(memory.save(conversation(1))).rejects.toMatchObject({
      name: 'PostgresRequestError',
      pgCode: '42883',
      message: expect.stringContaining('run the migrations'),
    });
    expect(texts(await memory.retrieve())).toEqual(['u0', 'a1']);
  });

  it('raises CorruptSessionError naming session and seq for a row that no longer decodes, and leaves it', async () => {
    const table = schemas.nextTable();
    const memory = await PostgresMemory.open(dataSource, 'corrupt', { table });
    await memory.save(conversation(3));
    const { tail } = await memory.loadSnapshot();
    const seq = tail[1]!.cursor;
    await schemas.query(
      `UPDATE ${table} SET message = '{"role": 5}'::jsonb WHERE session_id = $1 AND seq = $2`,
      ['corrupt', seq],
    );

    const failure = memory.retrieve();
    await expect(failure).rejects.toThrow(CorruptSessionError);
    await expect(memory.loadSnapshot()).rejects.toMatchObject({
      code: 'CORRUPT_SESSION',
      session: 'corrupt',
      message: expect.stringContaining(`seq ${seq}`),
    });
    // Writes never overwrite it; the row is still there as it was.
    await memory.save([userMessage('later')]);
    await memory.setMeta('title', 't');
    const rows = await schemas.query<{ message: unknown }>(
      `SELECT message FROM ${table} WHERE session_id = $1 AND seq = $2`,
      ['corrupt', seq],
    );
    expect(rows).toEqual([{ message: { role: 5 } }]);

    await memory.clear();
    expect(await memory.retrieve()).toEqual([]);
  });
});

describe('postgresBackend list', () => {
  it('pages through sessions sharing one updatedAt millisecond without skipping or repeating any', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const ids = ['tie-a', 'tie-b', 'tie-c', 'tie-d', 'tie-e'];
    for (const id of ids) await (await backend.open(id)).save([userMessage(id)]);
    await schemas.query(
      `UPDATE ${table}_sessions SET updated_at = '2026-01-02T03:04:05.678Z' WHERE session_id <> 'tie-e'`,
    );
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await backend.list({ limit: 2, after });
      seen.push(...page.items.map((i) => i.id));
      after = page.next ?? undefined;
    } while (after);
    expect(seen).toEqual(['tie-e', 'tie-a', 'tie-b', 'tie-c', 'tie-d']);
  });

  it('matches "%", "_" and "\\" in a search literally', async () => {
    const backend = await postgresBackend({ dataSource, table: schemas.nextTable() });
    for (const id of ['a_b', 'axb', 'c-d']) await (await backend.open(id)).save([userMessage(id)]);
    await (await backend.open('c-d')).setMeta('title', '100% done \\o/');
    const search = async (text: string) =>
      (await backend.list({ search: text })).items.map((i) => i.id);
    expect(await search('_')).toEqual(['a_b']);
    expect(await search('%')).toEqual(['c-d']);
    expect(await search('\\o')).toEqual(['c-d']);
    expect(await search('A_B')).toEqual(['a_b']);
  });
});

describe('preparedStatements', () => {
  /** The names prepared on the one connection of a pool of one, after a save and a retrieve. */
  async function preparedAfterUse(preparedStatements: boolean): Promise<string[]> {
    const single = await new DataSource({
      type: 'postgres',
      url: schemas.url,
      poolSize: 1,
    }).initialize();
    try {
      const memory = await PostgresMemory.open(single, 'prepared', {
        table: schemas.nextTable(),
        preparedStatements,
      });
      await memory.save(conversation(2));
      expect(texts(await memory.retrieve())).toEqual(['u0', 'a1']);
      await memory.setMeta('title', 't');
      const rows = (await single.query(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'agent_memory_%'",
      )) as { name: string }[];
      return rows.map((row) => row.name);
    } finally {
      await single.destroy();
    }
  }

  it('are named on the hot path by default, and none with preparedStatements: false (PgBouncer transaction mode)', async () => {
    expect((await preparedAfterUse(true)).length).toBeGreaterThanOrEqual(3);
    expect(await preparedAfterUse(false)).toEqual([]);
  });
});

describe('saves of one session waiting in one process', () => {
  /** The number of transactions that stored the session's rows (rows of one share `created_at`). */
  async function statementsOf(table: string, session: string): Promise<number> {
    const [{ n }] = await schemas.query<{ n: number }>(
      `SELECT count(DISTINCT created_at)::int AS n FROM ${table} WHERE session_id = $1`,
      [session],
    );
    return n;
  }

  it('go as one statement after the one in flight, each batch contiguous and in its order', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const writers = await Promise.all(Array.from({ length: 8 }, () => backend.open('grouped')));
    await Promise.all(
      writers.map((memory, w) => memory.save([userMessage(`w${w}-q`), userMessage(`w${w}-a`)])),
    );
    const got = texts(await writers[0]!.retrieve());
    // The first save went alone; the seven that waited went together, in the order they came.
    expect(got).toEqual(Array.from({ length: 8 }, (_, w) => [`w${w}-q`, `w${w}-a`]).flat());
    expect(await statementsOf(table, 'grouped')).toBe(2);
    expect(await backend.inspect('grouped')).toMatchObject({ messages: 16, stored: 16 });
  });

  it.each([
    ['with early lock release (default)', {}],
    ['with earlyLockRelease: false', { earlyLockRelease: false }],
  ])(
    'keep turns contiguous and counted across DataSources that wait for each other, %s',
    async (label, options) => {
      const table = schemas.nextTable();
      const other = await new DataSource({
        type: 'postgres',
        url: schemas.url,
        poolSize: 4,
      }).initialize();
      try {
        // Two DataSources do not combine their saves: the second waits for the first's lock.
        const backends = [
          await postgresBackend({ dataSource, table, ...options }),
          await postgresBackend({ dataSource: other, table, ensureSchema: false, ...options }),
        ];
        const TURNS = 15;
        await Promise.all(
          Array.from({ length: 6 }, async (_, w) => {
            const memory = await backends[w % 2]!.open('contended');
            for (let t = 0; t < TURNS; t++) {
              await memory.save([userMessage(`w${w}-q${t}`), userMessage(`w${w}-a${t}`)]);
            }
          }),
        );
        const got = texts(await (await backends[0]!.open('contended')).retrieve());
        const split = got.filter(
          (text, i) => text.includes('-q') && got[i + 1] !== text.replace('-q', '-a'),
        ).length;
        const lost = 6 * TURNS * 2 - got.length;
        console.log(
          `postgres, 2 DataSources x 3 writers x ${TURNS} turns ${label}: lost ${lost}, split ${split}`,
        );
        expect({ lost, split }).toEqual({ lost: 0, split: 0 });
        expect(await backends[1]!.inspect('contended')).toMatchObject({
          messages: 6 * TURNS * 2,
          stored: 6 * TURNS * 2,
        });
      } finally {
        await other.destroy();
      }
    },
    60_000,
  );

  it('fail together when their statement fails, and one aborted while waiting stores nothing', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    await schemas.query(
      `ALTER TABLE ${table} ADD CONSTRAINT no_boom CHECK (message->'parts'->0->>'text' <> 'boom')`,
    );
    const memory = await backend.open('failing');
    const aborted = new AbortController();
    const saves = [
      memory.save([userMessage('first')]),
      memory.save([userMessage('boom')]),
      memory.save([userMessage('with boom')]),
      memory.save([userMessage('aborted')], { signal: aborted.signal }),
    ];
    aborted.abort(new Error('caller gave up'));
    const outcomes = await Promise.allSettled(saves);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ pgCode: '23514' });
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ pgCode: '23514' });
    expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({
      message: expect.stringContaining('caller gave up'),
    });
    expect(texts(await memory.retrieve())).toEqual(['first']);
    await memory.save([userMessage('after')]);
    expect(texts(await memory.retrieve())).toEqual(['first', 'after']);
  });
});

describe('a save that finds the session locked by another writer', () => {
  it('waits for that writer to commit, then stores its batch after that writer’s rows, all counted', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const memory = await backend.open('locked');
    await memory.save([userMessage('before')]);
    const other = dataSource.createQueryRunner();
    await other.startTransaction();
    try {
      await other.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || $2, 0))`, [
        backend.tables.lockKey,
        'locked',
      ]);
      await other.query(
        `INSERT INTO ${table} (session_id, message) VALUES ($1, '{"role":"user","parts":[{"type":"text","text":"other"}]}')`,
        ['locked'],
      );
      let settled = false;
      const saving = memory.save([userMessage('q'), userMessage('a')]).finally(() => {
        settled = true;
      });
      // The save is queued behind the held lock on the server, not refused and not stored.
      await waitForLockWaiters(1);
      expect(settled).toBe(false);
      await other.commitTransaction();
      const saved = await saving;
      expect(texts(await memory.retrieve())).toEqual(['before', 'other', 'q', 'a']);
      const { tail } = await memory.loadSnapshot();
      expect([saved.first, saved.last]).toEqual([tail[2]!.cursor, tail[3]!.cursor]);
      expect(await backend.inspect('locked')).toMatchObject({ messages: 4, stored: 4 });
      // Later saves, uncontended again, are stored and counted once each.
      for (let i = 0; i < 10; i++) await memory.save([userMessage(`later ${i}`)]);
      expect(await backend.inspect('locked')).toMatchObject({ messages: 14, stored: 14 });
    } finally {
      if (other.isTransactionActive) await other.rollbackTransaction();
      await other.release();
    }
  });

  /** Resolves once `count` sessions wait for an advisory lock. */
  async function waitForLockWaiters(count: number): Promise<void> {
    for (;;) {
      const [{ n }] = await schemas.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
      );
      if (n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
});
