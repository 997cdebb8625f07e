import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';
import { checkpointTables } from '../checkpoint-tables';

/**
 * Creates the tables of LangGraph checkpoints (`@agent-memory/memory/langgraph`) of one `table`
 * option: checkpoints, channel values, pending writes and each thread's message log. Ids compare
 * byte by byte (`COLLATE "C"`), as LangGraph's ids sort by time that way; the checkpoints'
 * primary key serves a list by thread and namespace, newest first, and an index by id serves a
 * list across threads. `down` drops them.
 */
export class CreateCheckpointTables1765600000000 implements MigrationInterface {
  static readonly migrationName = 'CreateCheckpointTables1765600000000';
  readonly name = CreateCheckpointTables1765600000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const t = checkpointTables(this.names);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
        thread_id text COLLATE "C" NOT NULL,
        ns text COLLATE "C" NOT NULL,
        checkpoint_id text COLLATE "C" NOT NULL,
        parent_id text COLLATE "C",
        checkpoint_type text NOT NULL,
        checkpoint bytea NOT NULL,
        metadata_type text NOT NULL,
        metadata bytea NOT NULL,
        channel_versions jsonb NOT NULL,
        message_ranges jsonb,
        PRIMARY KEY (thread_id, ns, checkpoint_id)
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "${t.base}_lg_cps_id_idx" ON ${t.checkpoints} (checkpoint_id DESC)`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${t.blobs} (
        thread_id text COLLATE "C" NOT NULL,
        ns text COLLATE "C" NOT NULL,
        channel text COLLATE "C" NOT NULL,
        version text COLLATE "C" NOT NULL,
        type text NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${t.writes} (
        thread_id text COLLATE "C" NOT NULL,
        ns text COLLATE "C" NOT NULL,
        checkpoint_id text COLLATE "C" NOT NULL,
        task_id text COLLATE "C" NOT NULL,
        idx integer NOT NULL,
        task_path text NOT NULL,
        channel text NOT NULL,
        type text NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${t.messages} (
        thread_id text COLLATE "C" NOT NULL,
        position integer NOT NULL,
        chain text NOT NULL,
        type text NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (thread_id, position)
      )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const t = checkpointTables(this.names);
    for (const table of [t.messages, t.writes, t.blobs, t.checkpoints]) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
