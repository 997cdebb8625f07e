/**
 * The index on the sessions' `resource` meta: created by the migrations, used by the query that
 * finds one resource's sessions (`list({ resource })`, `erase`), and dropped by a revert.
 */
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { userMessage } from '../core/message';
import { memoryTableNames } from './memory-table-names';
import { AddResourceIndex1765200000000 } from './migrations/add-resource-index.migration';
import { postgresBackend } from './postgres.backend';

const schemas = new TestSchemas('residx');
const dataSource = useTestDataSource(schemas);

describe('the resource index', () => {
  it('exists after the migrations, serves the lookup by resource, and a revert drops it', async () => {
    const table = schemas.nextTable();
    const names = memoryTableNames(table);
    const backend = await postgresBackend({ dataSource, table });
    for (const [id, resource] of [
      ['a', 'ana'],
      ['b', 'ben'],
    ]) {
      const session = await backend.open(id!);
      await session.setMeta('resource', resource!);
      await session.save([userMessage(`hello from ${resource}`)]);
    }
    // Sessions without a resource take no entry: every save rewrites its session's row.
    for (let i = 0; i < 20; i++) await (await backend.open(`plain-${i}`)).save([userMessage('hi')]);
    await dataSource.query(`VACUUM ${names.sessions}`);
    const [{ entries }] = (await dataSource.query(
      `SELECT reltuples::int AS entries FROM pg_class WHERE oid = $1::regclass`,
      [`"${names.schema}"."${names.base}_resource"`],
    )) as [{ entries: number }];
    expect(entries).toBe(2);
    const indexes = async () =>
      (
        (await dataSource.query('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [
          names.schema,
        ])) as { indexname: string }[]
      ).map((row) => row.indexname);
    expect(await indexes()).toContain(`${names.base}_resource`);

    const plan = await dataSource.transaction(async (tx) => {
      // Two rows: without this the planner rightly prefers reading the table.
      await tx.query('SET LOCAL enable_seqscan = off');
      return JSON.stringify(
        await tx.query(
          `EXPLAIN (FORMAT JSON) SELECT session_id FROM ${names.sessions} WHERE meta->>'resource' = $1`,
          ['ana'],
        ),
      );
    });
    expect(plan).toContain(`${names.base}_resource`);
    expect((await backend.list({ resource: 'ana' })).items.map((info) => info.id)).toEqual(['a']);

    const runner = dataSource.createQueryRunner();
    try {
      await new AddResourceIndex1765200000000(names).down(runner);
    } finally {
      await runner.release();
    }
    expect(await indexes()).not.toContain(`${names.base}_resource`);
    // The store works without the index, only slower.
    expect((await backend.erase({ resource: 'ana' })).sessions).toBe(1);
    await backend.close();
  });
});
