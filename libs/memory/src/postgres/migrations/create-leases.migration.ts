import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';
import { leasesTable } from '../postgres-lease.store';

/**
 * Creates the leases table of one `table` option (`<table>_leases`: one row per lease, its holder
 * and until when, epoch ms), where work only one replica may do at a time (the retention sweep)
 * is claimed. `down` drops it.
 */
export class CreateLeases1765500000000 implements MigrationInterface {
  static readonly migrationName = 'CreateLeases1765500000000';
  readonly name = CreateLeases1765500000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${leasesTable(this.names)} (
        name text PRIMARY KEY,
        owner text NOT NULL,
        expires_at bigint NOT NULL
      )`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS ${leasesTable(this.names)}`);
  }
}
