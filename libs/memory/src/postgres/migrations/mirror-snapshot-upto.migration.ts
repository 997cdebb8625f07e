import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SNAPSHOTS_TRIGGER, type MemoryTableNames } from '../memory-table-names';
import { lockMigrationDdl } from './migration-lock';

/**
 * Adds `snapshot_upto` to the sessions table: the `upto_seq` of the session's snapshot, or null
 * without one, so that listing sessions reads one table instead of looking each listed session's
 * snapshot up. A row trigger on the snapshots table keeps it true for every writer (the store's
 * compare-and-swap, erase, a `Clear` by another writer, a truncate), after each statement, so it
 * never updates a session row twice in one statement. `down` drops the trigger, its function and
 * the column.
 */
export class MirrorSnapshotUpTo1765300000000 implements MigrationInterface {
  static readonly migrationName = 'MirrorSnapshotUpTo1765300000000';
  readonly name = MirrorSnapshotUpTo1765300000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { snapshots, sessions, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(
      `ALTER TABLE ${sessions} ADD COLUMN IF NOT EXISTS snapshot_upto bigint`,
    );
    // Snapshot writers wait here until commit: the trigger then sees every later write, and the
    // copy below every earlier one.
    await queryRunner.query(`LOCK TABLE ${snapshots} IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${functions.snapshotMoved}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          UPDATE ${sessions} SET snapshot_upto = NULL
          WHERE session_id = OLD.session_id AND snapshot_upto IS NOT NULL;
        ELSE
          UPDATE ${sessions} SET snapshot_upto = NEW.upto_seq
          WHERE session_id = NEW.session_id AND snapshot_upto IS DISTINCT FROM NEW.upto_seq;
        END IF;
        RETURN NULL;
      END $fn$`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS "${SNAPSHOTS_TRIGGER}" ON ${snapshots}`);
    await queryRunner.query(
      `CREATE TRIGGER "${SNAPSHOTS_TRIGGER}" AFTER INSERT OR UPDATE OR DELETE ON ${snapshots}
       FOR EACH ROW EXECUTE FUNCTION ${functions.snapshotMoved}()`,
    );
    await queryRunner.query(
      `UPDATE ${sessions} s SET snapshot_upto = sn.upto_seq FROM ${snapshots} sn
       WHERE sn.session_id = s.session_id AND s.snapshot_upto IS DISTINCT FROM sn.upto_seq`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const { snapshots, sessions, functions } = this.names;
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(`DROP TRIGGER IF EXISTS "${SNAPSHOTS_TRIGGER}" ON ${snapshots}`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS ${functions.snapshotMoved}()`);
    await queryRunner.query(`ALTER TABLE ${sessions} DROP COLUMN IF EXISTS snapshot_upto`);
  }
}
