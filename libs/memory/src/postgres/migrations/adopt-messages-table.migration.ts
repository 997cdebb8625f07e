import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MEMORY_TRIGGERS, type MemoryTableNames } from '../memory-table-names';
import { lockMigrationDdl } from './migration-lock';
import { NOW_MS } from '../sql-now';

/**
 * Lets the messages table be shared with writers that know nothing of the sessions and snapshots
 * tables (Phero, plain SQL), and adopts the rows already there:
 * - checks that the messages table has the columns the store reads (`session_id text`,
 *   `seq bigint`, `message jsonb`, `created_at timestamptz`), and fails naming what differs;
 * - adds statement-level triggers with transition tables: an INSERT by another writer adds to
 *   the session's `saved`/`stored` and moves `updated_at` (the store's own save does that in its
 *   statement and marks it with `agent_memory.own_insert`, which the trigger's WHEN skips); a DELETE takes from `stored`, and when it leaves a
 *   session with no rows (a `Clear` by another writer) it also drops the session's snapshot and
 *   resets `saved`, unless the store itself is pruning; a TRUNCATE empties every session;
 * - fills the sessions table from the rows already there (a session Phero wrote becomes listed,
 *   and counts of sessions we wrote are set to the true number of rows).
 * Idempotent (functions replaced, triggers re-created, counts recomputed); the messages table is
 * locked against writes while it runs, so no row is counted twice or missed.
 */
export class AdoptMessagesTable1764770000000 implements MigrationInterface {
  static readonly migrationName = 'AdoptMessagesTable1764770000000';
  readonly name = AdoptMessagesTable1764770000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { messages, snapshots, sessions, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    await assertMessagesShape(queryRunner, this.names);
    // Writers wait here until commit; readers go on. The triggers then see every later row.
    await queryRunner.query(`LOCK TABLE ${messages} IN SHARE ROW EXCLUSIVE MODE`);

    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${functions.added}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        INSERT INTO ${sessions} AS s (session_id, saved, stored, updated_at)
        SELECT session_id, count(*), count(*), ${NOW_MS}
        FROM added GROUP BY session_id ORDER BY session_id
        ON CONFLICT (session_id) DO UPDATE
          SET saved = s.saved + excluded.saved, stored = s.stored + excluded.stored,
              updated_at = excluded.updated_at;
        RETURN NULL;
      END $fn$`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${functions.removed}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        own boolean := coalesce(current_setting('agent_memory.own_delete', true), '') = 'on';
      BEGIN
        WITH gone AS (
          SELECT session_id, count(*) AS n FROM removed GROUP BY session_id ORDER BY session_id
        ),
        emptied AS (
          SELECT session_id FROM gone
          WHERE NOT own AND NOT EXISTS (SELECT 1 FROM ${messages} m WHERE m.session_id = gone.session_id)
        ),
        dropped AS (
          DELETE FROM ${snapshots} sn USING emptied WHERE sn.session_id = emptied.session_id
        )
        UPDATE ${sessions} s
        SET stored = CASE WHEN e.session_id IS NULL THEN greatest(s.stored - gone.n, 0) ELSE 0 END,
            saved = CASE WHEN e.session_id IS NULL THEN s.saved ELSE 0 END,
            updated_at = ${NOW_MS}
        FROM gone LEFT JOIN emptied e ON e.session_id = gone.session_id
        WHERE s.session_id = gone.session_id;
        RETURN NULL;
      END $fn$`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${functions.emptied}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM ${snapshots};
        UPDATE ${sessions} SET saved = 0, stored = 0, updated_at = ${NOW_MS}
        WHERE saved <> 0 OR stored <> 0;
        RETURN NULL;
      END $fn$`,
    );
    for (const trigger of Object.values(MEMORY_TRIGGERS)) {
      await queryRunner.query(`DROP TRIGGER IF EXISTS "${trigger}" ON ${messages}`);
    }
    // The store's own save counts its rows in its statement (cheaper than the trigger) and says so.
    await queryRunner.query(
      `CREATE TRIGGER "${MEMORY_TRIGGERS.added}" AFTER INSERT ON ${messages}
       REFERENCING NEW TABLE AS added FOR EACH STATEMENT
       WHEN (coalesce(current_setting('agent_memory.own_insert', true), '') <> 'on')
       EXECUTE FUNCTION ${functions.added}()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "${MEMORY_TRIGGERS.removed}" AFTER DELETE ON ${messages}
       REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ${functions.removed}()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "${MEMORY_TRIGGERS.emptied}" AFTER TRUNCATE ON ${messages}
       FOR EACH STATEMENT EXECUTE FUNCTION ${functions.emptied}()`,
    );

    // The rows already there: sessions another writer created, and true counts for ours.
    await queryRunner.query(
      `INSERT INTO ${sessions} AS s (session_id, saved, stored, updated_at)
       SELECT session_id, count(*), count(*), date_trunc('milliseconds', coalesce(max(created_at), now()))
       FROM ${messages} GROUP BY session_id ORDER BY session_id
       ON CONFLICT (session_id) DO UPDATE
         SET stored = excluded.stored, saved = greatest(s.saved, excluded.saved),
             updated_at = greatest(s.updated_at, excluded.updated_at)`,
    );
    await queryRunner.query(
      `UPDATE ${sessions} s SET stored = 0
       WHERE stored <> 0 AND NOT EXISTS (SELECT 1 FROM ${messages} m WHERE m.session_id = s.session_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const { messages, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    const [{ exists }] = (await queryRunner.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
      messages,
    ])) as [{ exists: boolean }];
    if (exists) {
      for (const trigger of Object.values(MEMORY_TRIGGERS)) {
        await queryRunner.query(`DROP TRIGGER IF EXISTS "${trigger}" ON ${messages}`);
      }
    }
    for (const fn of Object.values(functions)) {
      await queryRunner.query(`DROP FUNCTION IF EXISTS ${fn}()`);
    }
  }
}

/** The columns the store reads and writes, with the types it needs. */
const MESSAGE_COLUMNS: Record<string, string> = {
  session_id: 'text',
  seq: 'bigint',
  message: 'jsonb',
  created_at: 'timestamp with time zone',
};

/**
 * @throws RangeError (the `table` option names a table the store cannot use) naming the table and
 * every column that is missing or of another type, so that a table of another shape is never
 * adopted half-way. A RangeError, not a driver error, so that it reaches the caller as it is.
 */
async function assertMessagesShape(
  queryRunner: QueryRunner,
  { messages, table }: MemoryTableNames,
): Promise<void> {
  const rows = (await queryRunner.query(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type
     FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
    [messages],
  )) as { name: string; type: string }[];
  const found = new Map(rows.map((row) => [row.name, row.type]));
  const wrong = Object.entries(MESSAGE_COLUMNS)
    .filter(([name, type]) => found.get(name) !== type)
    .map(([name, type]) =>
      found.has(name) ? `${name} is ${found.get(name)}, not ${type}` : `${name} ${type} is missing`,
    );
  if (wrong.length > 0) {
    throw new RangeError(
      `the messages table "${table}" has another shape than the memory store's: ${wrong.join('; ')}`,
    );
  }
}
