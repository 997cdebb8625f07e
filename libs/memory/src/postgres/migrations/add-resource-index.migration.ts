import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RESOURCE_META_KEY } from '../../core/backend.interface';
import type { MemoryTableNames } from '../memory-table-names';

/** The name of the index on the sessions' `resource` meta (`<table>_resource`). */
export function resourceIndexName(names: MemoryTableNames): string {
  return `${names.base}_resource`;
}

/**
 * Indexes the sessions table on the `resource` meta, so that `list({ resource })` and
 * `erase({ resource })` read one person's sessions, not the whole table. Only an index: the store
 * works without it (slower), so a database migrated by an earlier release keeps working until
 * this runs. `down` drops it.
 *
 * Partial (sessions with a resource only): every save rewrites its session's row, and a full
 * index would take a new entry for each of those rows, most of which have no resource. Lookups
 * by `meta->>'resource' = $1` still use it, since an equality implies the value is not null.
 */
export class AddResourceIndex1765200000000 implements MigrationInterface {
  static readonly migrationName = 'AddResourceIndex1765200000000';
  readonly name = AddResourceIndex1765200000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "${resourceIndexName(this.names)}"
       ON ${this.names.sessions} ((meta->>'${RESOURCE_META_KEY}'))
       WHERE meta->>'${RESOURCE_META_KEY}' IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const index = this.names.schema
      ? `"${this.names.schema}"."${resourceIndexName(this.names)}"`
      : `"${resourceIndexName(this.names)}"`;
    await queryRunner.query(`DROP INDEX IF EXISTS ${index}`);
  }
}
