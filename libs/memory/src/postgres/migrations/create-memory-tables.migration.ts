import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';

/**
 * Creates the messages, snapshots and sessions tables of one `table` option, with the listing
 * index on `(updated_at desc, session_id)`. `down` drops them (and their data).
 */
export class CreateMemoryTables1764680000000 implements MigrationInterface {
  static readonly migrationName = 'CreateMemoryTables1764680000000';
  readonly name = CreateMemoryTables1764680000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { messages, snapshots, sessions, schema, recentIndex } = this.names;
    if (schema) await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await queryRunner.query(
      `CREATE TABLE ${messages} (
        session_id text NOT NULL,
        seq bigserial NOT NULL,
        message jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, seq)
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE ${snapshots} (
        session_id text PRIMARY KEY,
        upto_seq bigint NOT NULL,
        snapshot jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE ${sessions} (
        session_id text PRIMARY KEY,
        saved bigint NOT NULL DEFAULT 0,
        stored bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        meta jsonb NOT NULL DEFAULT '{}'::jsonb
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX "${recentIndex}" ON ${sessions} (updated_at DESC, session_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const { messages, snapshots, sessions } = this.names;
    await queryRunner.query(`DROP TABLE IF EXISTS ${sessions}`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${snapshots}`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${messages}`);
  }
}
