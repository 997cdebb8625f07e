import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';
import { auditLogTable } from '../postgres-audit.log';

/**
 * Creates the audit log table of one `table` option (`<table>_audit`: one row per change made
 * through the admin API, in `id` order, with its time for pruning by age). `down` drops it.
 */
export class CreateAuditLog1765100000000 implements MigrationInterface {
  static readonly migrationName = 'CreateAuditLog1765100000000';
  readonly name = CreateAuditLog1765100000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const table = auditLogTable(this.names);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL,
        entry jsonb NOT NULL
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "${this.names.base}_audit_at_idx" ON ${table} (at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS ${auditLogTable(this.names)}`);
  }
}
