/**
 * The sessions' `snapshot_upto`: listing reads a session's snapshot position from its own row, so
 * that copy must follow the snapshots table through every writer, and the migration must fill it
 * for snapshots written before it ran.
 */
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { assistantMessage, userMessage } from '../core/message';
import type { SessionInfo } from '../core/backend.interface';
import { memoryTableNames } from './memory-table-names';
import { MirrorSnapshotUpTo1765300000000 } from './migrations/mirror-snapshot-upto.migration';
import { postgresBackend, type PostgresBackend } from './postgres.backend';

const schemas = new TestSchemas('snapupto');
const dataSource = useTestDataSource(schemas);

const turn = (i: number) => [userMessage(`q${i}`), assistantMessage(`a${i}`)];

async function listed(backend: PostgresBackend): Promise<Record<string, Partial<SessionInfo>>> {
  const { items } = await backend.list({ limit: 100 });
  return Object.fromEntries(
    items.map((info) => [
      info.id,
      { hasSnapshot: info.hasSnapshot, snapshotUpTo: info.snapshotUpTo },
    ]),
  );
}

describe('the sessions’ snapshot_upto', () => {
  it('follows snapshots saved, replaced, erased and dropped by another writer', async () => {
    const table = schemas.nextTable();
    const backend = await postgresBackend({ dataSource, table });
    const a = await backend.open('a');
    const b = await backend.open('b');
    await a.save(turn(1));
    await b.save(turn(1));
    await a.save(turn(2));
    const aFirst = await a.saveSnapshot({ summary: 'first' }, 2, null);
    expect((await listed(backend)).a).toEqual({ hasSnapshot: true, snapshotUpTo: 2 });
    expect(await backend.inspect('a')).toMatchObject({ hasSnapshot: true, snapshotUpTo: 2 });
    expect((await listed(backend)).b).toEqual({ hasSnapshot: false, snapshotUpTo: null });

    const aLast = (await a.entries()).at(-1)!.cursor;
    await a.saveSnapshot({ summary: 'second' }, aLast, aFirst);
    expect((await listed(backend)).a).toEqual({ hasSnapshot: true, snapshotUpTo: aLast });

    // Another writer (Phero, plain SQL) clears the session: the delete trigger drops its snapshot.
    const { messages } = memoryTableNames(table);
    await dataSource.query(`DELETE FROM ${messages} WHERE session_id = 'a'`);
    expect((await listed(backend)).a).toEqual({ hasSnapshot: false, snapshotUpTo: null });

    await b.save(turn(2));
    await b.saveSnapshot({ summary: 'b' }, (await b.entries())[1]!.cursor, null);
    expect((await listed(backend)).b?.hasSnapshot).toBe(true);
    await dataSource.query(`TRUNCATE ${messages}`);
    expect((await listed(backend)).b).toEqual({ hasSnapshot: false, snapshotUpTo: null });
    await backend.close();
  });

  it('is filled by the migration for snapshots written before it ran', async () => {
    const table = schemas.nextTable();
    const names = memoryTableNames(table);
    const backend = await postgresBackend({ dataSource, table });
    const session = await backend.open('older');
    await session.save(turn(1));
    const runner = dataSource.createQueryRunner();
    try {
      await new MirrorSnapshotUpTo1765300000000(names).down(runner);
      expect((await backend.schemaStatus()).missing).toEqual([
        `column ${names.base}_sessions.snapshot_upto`,
        'trigger agent_memory_snapshot_upto',
      ]);
      // A listing before the migration has run says so, rather than failing obscurely.
      await expect(backend.list({ limit: 10 })).rejects.toMatchObject({
        name: 'PostgresRequestError',
        pgCode: '42703',
      });
      // Written while the column is missing, as a pod of an earlier release would.
      await dataSource.query(
        `INSERT INTO ${names.snapshots} (session_id, upto_seq, snapshot) VALUES ('older', 1, '{"summary":"s"}')`,
      );
      // As TypeORM runs a migration: in a transaction.
      await runner.startTransaction();
      await new MirrorSnapshotUpTo1765300000000(names).up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect((await backend.schemaStatus()).ready).toBe(true);
    expect((await listed(backend)).older).toEqual({ hasSnapshot: true, snapshotUpTo: 1 });
    await backend.close();
  });
});
