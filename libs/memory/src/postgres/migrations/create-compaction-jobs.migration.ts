import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';
import { compactionJobsTable } from '../postgres-compaction-job.store';

/**
 * Creates the compaction jobs table of one `table` option (`<table>_jobs`: one row per job, its
 * state as JSON and when it expires), so that every replica answers for every job. `down` drops it.
 */
export class CreateCompactionJobs1764960000000 implements MigrationInterface {
  static readonly migrationName = 'CreateCompactionJobs1764960000000';
  readonly name = CreateCompactionJobs1764960000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = compactionJobsTable(this.names);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
        job_id text PRIMARY KEY,
        job jsonb NOT NULL,
        expires_at timestamptz NOT NULL
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "${this.names.base}_jobs_expiry_idx" ON ${table} (expires_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS ${compactionJobsTable(this.names)}`);
  }
}
