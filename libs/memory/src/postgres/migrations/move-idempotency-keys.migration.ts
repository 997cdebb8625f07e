import type { MigrationInterface, QueryRunner } from 'typeorm';
import { IDEMPOTENCY_KEY_WINDOW } from '../../core/idempotency';
import { KEYS_TRIGGER, sessionLockKeySql, type MemoryTableNames } from '../memory-table-names';
import { saveStatementSql } from '../save-statement';
import { lockMigrationDdl } from './migration-lock';

/**
 * Moves the idempotency keys out of the sessions row into a table of their own, `<table>_keys`
 * (`session_id, key` primary key, the first save's `first_seq`/`last_seq` and `digest`), and
 * creates the save procedure that checks and records them in the statement that saves
 * (`<table>_save_group`, see `saveStatementSql`): a keyed save then costs what an unkeyed one
 * does, instead of a transaction that reads and rewrites the row's jsonb array.
 *
 * - The records in `idempotency_keys` are copied (the column stays, no longer read or written,
 *   for processes of an older release still running during an upgrade).
 * - A statement trigger on the sessions table deletes the keys of deleted sessions rows (`clear`,
 *   `delete`, `erase`, plain SQL), as deleting the row forgot its keys before.
 * - `down` copies the keys back into the column (newest {@link IDEMPOTENCY_KEY_WINDOW} per
 *   session, oldest first), then drops the trigger, its function, the procedure and the table.
 */
export class MoveIdempotencyKeys1765400000000 implements MigrationInterface {
  static readonly migrationName = 'MoveIdempotencyKeys1765400000000';
  readonly name = MoveIdempotencyKeys1765400000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { sessions, keys, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${keys} (
        session_id text NOT NULL,
        key text NOT NULL,
        first_seq bigint,
        last_seq bigint,
        digest text,
        PRIMARY KEY (session_id, key)
      )`,
    );
    // Keyed saves of an older release wait here until commit, so none is left behind the copy.
    await queryRunner.query(`LOCK TABLE ${sessions} IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `INSERT INTO ${keys} (session_id, key, first_seq, last_seq, digest)
       SELECT s.session_id, r->>'key', (r->>'first')::bigint, (r->>'last')::bigint, r->>'digest'
       FROM ${sessions} s, jsonb_array_elements(s.idempotency_keys) AS r
       WHERE jsonb_typeof(s.idempotency_keys) = 'array' AND jsonb_typeof(r) = 'object'
         AND coalesce(r->>'key', '') <> ''
       ON CONFLICT (session_id, key) DO NOTHING`,
    );
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${functions.keysGone}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        DELETE FROM ${keys} k USING gone WHERE k.session_id = gone.session_id;
        RETURN NULL;
      END $fn$`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS "${KEYS_TRIGGER}" ON ${sessions}`);
    await queryRunner.query(
      `CREATE TRIGGER "${KEYS_TRIGGER}" AFTER DELETE ON ${sessions}
       REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ${functions.keysGone}()`,
    );
    const statement = saveStatementSql(
      this.names,
      {
        session: 'in_session',
        messages: 'in_messages',
        batchOfMessage: 'in_batch_of',
        keys: 'in_keys',
        digests: 'in_digests',
      },
      'true',
    );
    const lock = sessionLockKeySql(this.names, 'in_session');
    await queryRunner.query(
      `CREATE OR REPLACE PROCEDURE ${functions.saveGroup}(
         in_session text, in_messages jsonb, in_batch_of int[], in_keys text[], in_digests text[],
         early boolean,
         INOUT out_seqs bigint[] DEFAULT NULL, INOUT out_saved bigint DEFAULT NULL,
         INOUT out_seen jsonb DEFAULT NULL
       ) LANGUAGE plpgsql AS $fn$
      DECLARE
        waited boolean := NOT pg_try_advisory_xact_lock(${lock});
        ignored boolean;
      BEGIN
        IF waited THEN
          IF early THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;
          PERFORM pg_advisory_xact_lock(${lock});
        END IF;
        ${statement}
          INTO ignored, out_seqs, out_saved, out_seen;
        IF waited AND early THEN
          COMMIT;
          PERFORM pg_logical_emit_message(true, 'agent_memory', 'flush');
        END IF;
      END $fn$`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const { sessions, keys, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(`LOCK TABLE ${sessions} IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `UPDATE ${sessions} s SET idempotency_keys = k.records
       FROM (
         SELECT session_id, jsonb_agg(
             jsonb_strip_nulls(jsonb_build_object(
               'key', key, 'first', first_seq, 'last', last_seq, 'digest', digest))
             ORDER BY first_seq NULLS FIRST) AS records
         FROM (
           SELECT *, row_number() OVER (PARTITION BY session_id ORDER BY first_seq DESC NULLS LAST) AS newest
           FROM ${keys}
         ) ranked
         WHERE newest <= ${IDEMPOTENCY_KEY_WINDOW}
         GROUP BY session_id
       ) k
       WHERE k.session_id = s.session_id`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS "${KEYS_TRIGGER}" ON ${sessions}`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ${functions.keysGone}()`);
    await queryRunner.query(`DROP PROCEDURE IF EXISTS ${functions.saveGroup}`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${keys}`);
  }
}
