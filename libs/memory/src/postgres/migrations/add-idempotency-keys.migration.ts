import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';

/**
 * Adds `idempotency_keys` to the sessions table: the session's newest keyed saves, a jsonb array
 * of `{ key, first, last }`, oldest first, trimmed to `IDEMPOTENCY_KEY_WINDOW` on every keyed save.
 * It lives on the session's row, so the row lock that serialises writers also guards it, and
 * deleting the row (`clear`, `delete`) forgets the keys. `down` drops the column.
 */
export class AddIdempotencyKeys1764950000000 implements MigrationInterface {
  static readonly migrationName = 'AddIdempotencyKeys1764950000000';
  readonly name = AddIdempotencyKeys1764950000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${this.names.sessions} ADD COLUMN IF NOT EXISTS idempotency_keys jsonb NOT NULL DEFAULT '[]'::jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE ${this.names.sessions} DROP COLUMN IF EXISTS idempotency_keys`,
    );
  }
}
