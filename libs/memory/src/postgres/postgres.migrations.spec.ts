import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import {
  createMemoryMigrations,
  MemoryMigrationDataSource,
  memoryMigrationsApplied,
  PostgresMemory,
  postgresBackend,
  postgresDriver,
} from '@agent-memory/memory/postgres';
import { userMessage, type SaveResult } from '@agent-memory/memory';
import { backendSpec } from '@agent-memory/test-conformance';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { runTogether, startScript } from '@agent-memory/test-support/child-script';
import { STORE_PROCESS_SCRIPT, storeProcessArgs } from '@agent-memory/test-support/store-process';

const REPO_ROOT = join(__dirname, '../../../..');
const schemas = new TestSchemas('pgmig');
const dataSource = useTestDataSource(schemas, { poolSize: 2 });

async function tablesOf(schema: string): Promise<string[]> {
  const rows = await schemas.query<{ table_name: string }>(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    [schema],
  );
  return rows.map((r) => r.table_name);
}

const MEMORY_TABLES = [
  'conversation_memory',
  'conversation_memory_sessions',
  'conversation_memory_snapshots',
];

describe('the memory migrations', () => {
  it('go up, down and up again on an empty schema, and the store works on the result', async () => {
    const schema = schemas.next();
    const table = `${schema}.conversation_memory`;
    const migrator = await new MemoryMigrationDataSource({ url: schemas.url }, table).initialize();
    try {
      expect(await memoryMigrationsApplied(dataSource, table)).toBe(false);
      await migrator.runMigrations({ transaction: 'all' });
      expect(await tablesOf(schema)).toEqual([
        'conversation_memory',
        'conversation_memory_audit',
        'conversation_memory_jobs',
        'conversation_memory_keys',
        'conversation_memory_leases',
        'conversation_memory_lg_blobs',
        'conversation_memory_lg_cps',
        'conversation_memory_lg_msgs',
        'conversation_memory_lg_writes',
        'conversation_memory_migrations',
        'conversation_memory_sessions',
        'conversation_memory_snapshots',
      ]);
      expect(await memoryMigrationsApplied(dataSource, table)).toBe(true);

      for (const _ of createMemoryMigrations(table)) {
        await migrator.undoLastMigration({ transaction: 'all' });
      }
      expect(await tablesOf(schema)).toEqual(['conversation_memory_migrations']);
      expect(await memoryMigrationsApplied(dataSource, table)).toBe(false);

      await migrator.runMigrations({ transaction: 'all' });
      expect(await memoryMigrationsApplied(dataSource, table)).toBe(true);
    } finally {
      await migrator.destroy();
    }
    const memory = await PostgresMemory.open(dataSource, 'after-migrations', {
      table,
      ensureSchema: false,
    });
    await memory.save([userMessage('hello')]);
    expect((await memory.loadSnapshot()).tail).toHaveLength(1);
  });

  it('move the idempotency keys of a session row into the keys table and back, replaying after each', async () => {
    const schema = schemas.next();
    const table = `${schema}.conversation_memory`;
    const migrator = await new MemoryMigrationDataSource({ url: schemas.url }, table).initialize();
    const open = () => PostgresMemory.open(dataSource, 'keyed', { table, ensureSchema: false });
    let first: SaveResult;
    try {
      await migrator.runMigrations({ transaction: 'all' });
      first = await (await open()).save([userMessage('one')], { idempotencyKey: 'k1' });
      // Back past the checkpoint tables and the leases table, then to the jsonb array: the key
      // goes with it, beside a record kept before digests.
      await migrator.undoLastMigration({ transaction: 'all' });
      await migrator.undoLastMigration({ transaction: 'all' });
      await migrator.undoLastMigration({ transaction: 'all' });
      const [row] = await schemas.query<{ keys: { key: string }[] }>(
        `SELECT idempotency_keys AS keys FROM ${table}_sessions WHERE session_id = 'keyed'`,
      );
      expect(row!.keys).toEqual([
        { key: 'k1', first: first.first, last: first.last, digest: expect.any(String) },
      ]);
      await schemas.query(
        `UPDATE ${table}_sessions SET idempotency_keys =
           '[{"key": "k0", "first": 1, "last": 1}]'::jsonb || idempotency_keys WHERE session_id = 'keyed'`,
      );
      await migrator.runMigrations({ transaction: 'all' });
    } finally {
      await migrator.destroy();
    }
    const memory = await open();
    expect(await memory.save([userMessage('one')], { idempotencyKey: 'k1' })).toEqual({
      ...first,
      replayed: true,
    });
    expect(await memory.save([userMessage('zero?')], { idempotencyKey: 'k0' })).toEqual({
      first: 1,
      last: 1,
      replayed: true,
    });
    await expect(
      memory.save([userMessage('other')], { idempotencyKey: 'k1' }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await memory.loadSnapshot()).tail).toHaveLength(1);
  });

  it('run through the TypeORM CLI scripts (npm run migration:run / migration:revert)', async () => {
    const schema = schemas.next();
    const env = {
      ...process.env,
      DATABASE_URL: schemas.url,
      MEMORY_PG_TABLE: `${schema}.conversation_memory`,
    };
    const run = (script: string) =>
      promisify(execFile)('npm', ['run', '--silent', script], { cwd: REPO_ROOT, env });
    await run('migration:run');
    const all = await tablesOf(schema);
    expect(all).toEqual(expect.arrayContaining([...MEMORY_TABLES, 'conversation_memory_lg_cps']));
    // A revert undoes the newest migration only (the LangGraph tables); every migration's way
    // down is walked by the test above, without a process per step.
    await run('migration:revert');
    expect(await tablesOf(schema)).toEqual(all.filter((table) => !table.includes('_lg_')));
  }, 60_000);

  it('do not collide when four processes run them at once on one table', async () => {
    const table = schemas.nextTable();
    const results = await runTogether(
      [1, 2, 3, 4].map(() =>
        startScript<{ applied: boolean }>(
          STORE_PROCESS_SCRIPT,
          storeProcessArgs(
            'migrate',
            backendSpec(postgresDriver, { DATABASE_URL: schemas.url, MEMORY_PG_TABLE: table }),
            '',
          ),
        ),
      ),
    );
    expect(results).toEqual([
      { applied: true },
      { applied: true },
      { applied: true },
      { applied: true },
    ]);
    const [schema, base] = table.split('.');
    const recorded = await schemas.query(`SELECT name FROM "${schema}"."${base}_migrations"`);
    expect(recorded).toHaveLength(createMemoryMigrations(table).length);
  }, 60_000);

  it.each(['a;drop', '1abc', 'a.b.c', 'a b', 'schema."x"', '', 'pg_temp.memory'])(
    'refuse the table name %j before any SQL',
    async (bad) => {
      expect(() => createMemoryMigrations(bad)).toThrow(RangeError);
      expect(() => new MemoryMigrationDataSource({ url: schemas.url }, bad)).toThrow(
        /invalid table name/,
      );
      // Neither DataSource can run SQL: an unreachable server and one never initialised.
      await expect(
        postgresBackend({ url: 'postgres://postgres@127.0.0.1:1/none', table: bad }),
      ).rejects.toThrow(/invalid table name|"table" must be a non-empty string/);
      const never = new DataSource({ type: 'postgres', url: schemas.url });
      await expect(PostgresMemory.open(never, 'x', { table: bad })).rejects.toThrow(RangeError);
    },
  );

  it('refuse a name too long for the suffixed tables', () => {
    expect(() => createMemoryMigrations('x'.repeat(53))).toThrow(/at most 52 fit/);
    expect(() => createMemoryMigrations('x'.repeat(52))).not.toThrow();
  });
});
