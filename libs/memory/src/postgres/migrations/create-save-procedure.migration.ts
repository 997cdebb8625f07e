import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sessionLockKeySql, type MemoryTableNames } from '../memory-table-names';
import { lockMigrationDdl } from './migration-lock';
import { NOW_MS } from '../sql-now';

/**
 * Creates the save procedure of one `table` option (`<table>_save`): `CALL <table>_save(session,
 * messages, early)` stores `messages` (a JSON array) in order under the session's advisory lock,
 * counts them on the sessions row, and returns their seqs. A procedure because it may commit in
 * the middle: with `early` (the `earlyLockRelease` option), a call that had to wait for the lock
 * commits without waiting for its WAL flush, so the lock passes on at once, then waits for the
 * flush in a second transaction of the same call (a transactional `pg_logical_emit_message`,
 * whose commit waits for every commit before it). One round trip instead of two statements, and
 * the body's plans are cached per connection whatever `preparedStatements` says.
 * `down` drops it.
 */
export class CreateSaveProcedure1764970000000 implements MigrationInterface {
  static readonly migrationName = 'CreateSaveProcedure1764970000000';
  readonly name = CreateSaveProcedure1764970000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { messages, sessions, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    const key = sessionLockKeySql(this.names, 'for_session');
    await queryRunner.query(
      `CREATE OR REPLACE PROCEDURE ${functions.save}(
         for_session text, batch jsonb, early boolean, INOUT seqs bigint[] DEFAULT NULL
       ) LANGUAGE plpgsql AS $fn$
      DECLARE
        waited boolean := NOT pg_try_advisory_xact_lock(${key});
        n bigint := jsonb_array_length(batch);
      BEGIN
        IF waited THEN
          IF early THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;
          PERFORM pg_advisory_xact_lock(${key});
        END IF;
        -- The insert trigger counts only other writers' rows; these are counted here.
        PERFORM set_config('agent_memory.own_insert', 'on', true);
        INSERT INTO ${sessions} AS s (session_id, saved, stored, updated_at)
        VALUES (for_session, n, n, ${NOW_MS})
        ON CONFLICT (session_id) DO UPDATE
          SET saved = s.saved + excluded.saved, stored = s.stored + excluded.stored,
              updated_at = excluded.updated_at;
        WITH added AS (
          INSERT INTO ${messages} (session_id, message)
          SELECT for_session, b.message FROM jsonb_array_elements(batch) WITH ORDINALITY AS b(message, ord)
          ORDER BY b.ord
          RETURNING seq
        )
        SELECT array_agg(seq ORDER BY seq) INTO seqs FROM added;
        IF waited AND early THEN
          COMMIT;
          PERFORM pg_logical_emit_message(true, 'agent_memory', 'flush');
        END IF;
      END $fn$`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(`DROP PROCEDURE IF EXISTS ${this.names.functions.save}`);
  }
}
