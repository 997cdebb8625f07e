import { DataSource } from 'typeorm';
import { CorruptSessionError, userMessage } from '@agent-memory/memory';
import { PostgresMemory, postgresBackend } from '@agent-memory/memory/postgres';
import { conversation, texts } from '../../../../test/conformance/fixtures';
import { TestSchemas } from '../../../../test/support/postgres';

const schemas = new TestSchemas('pgstore');
let dataSource: DataSource;

beforeAll(async () => {
  dataSource = await new DataSource({
    type: 'postgres',
    url: schemas.url,
    poolSize: 4,
  }).initialize();
});
afterAll(async () => {
  await dataSource.destroy();
  await schemas.cleanup();
});

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
    await expect(memory.save(conversation(1))).rejects.toMatchObject({
      name: 'PostgresRequestError',
      pgCode: '42P01',
      message: expect.stringContaining('run the migrations'),
    });
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
