import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MemoryTableNames } from '../memory-table-names';
import { lockMigrationDdl } from './migration-lock';

/**
 * Creates the messages, snapshots and sessions tables of one `table` option, with the listing
 * index on `(updated_at desc, session_id)`. Idempotent: every object is created only when missing,
 * so it runs cleanly on tables created earlier by another runner (the app's DataSource, the CLI)
 * or by Phero, whose messages table has the same shape and is kept with its rows.
 *
 * `down` drops the snapshots and sessions tables, and the messages table only when it holds no
 * rows: a table with messages (perhaps Phero's, adopted) is never dropped by a revert.
 */
export class CreateMemoryTables1764680000000 implements MigrationInterface {
  static readonly migrationName = 'CreateMemoryTables1764680000000';
  readonly name = CreateMemoryTables1764680000000.migrationName;

  constructor(private readonly names: MemoryTableNames) {}

  async up(queryRunner: QueryRunner): Promise<void> {
    const { messages, snapshots, sessions, schema, recentIndex } = this.names;
    await lockMigrationDdl(queryRunner);
    if (schema) await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${messages} (
        session_id text NOT NULL,
        seq bigserial NOT NULL,
        message jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, seq)
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${snapshots} (
        session_id text PRIMARY KEY,
        upto_seq bigint NOT NULL,
        snapshot jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${sessions} (
        session_id text PRIMARY KEY,
        saved bigint NOT NULL DEFAULT 0,
        stored bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        meta jsonb NOT NULL DEFAULT '{}'::jsonb
      )`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "${recentIndex}" ON ${sessions} (updated_at DESC, session_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const { messages, snapshots, sessions } = this.names;
    await lockMigrationDdl(queryRunner);
    await queryRunner.query(`DROP TABLE IF EXISTS ${sessions}`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${snapshots}`);
    const [{ exists }] = (await queryRunner.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
      messages,
    ])) as [{ exists: boolean }];
    if (!exists) return;
    const rows = (await queryRunner.query(`SELECT 1 FROM ${messages} LIMIT 1`)) as unknown[];
    if (rows.length === 0) await queryRunner.query(`DROP TABLE ${messages}`);
  }
}
