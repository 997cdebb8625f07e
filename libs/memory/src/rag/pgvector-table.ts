import type { MigrationInterface, QueryRunner } from 'typeorm';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/** The default `table` option of `PgVectorStore`. */
export const DEFAULT_VECTOR_TABLE = 'memory_vectors';

/** The quoted SQL names one `table` option (`name` or `schema.name`) stands for. */
export interface VectorTableNames {
  readonly table: string;
  readonly schema: string | null;
  /** Quoted, schema-qualified name of the vectors table. */
  readonly qualified: string;
  /** Unquoted name of the table, for `to_regclass` and index names. */
  readonly base: string;
}

/** @throws RangeError when `table` is not `name` or `schema.name` of plain identifiers. */
export function vectorTableNames(table = DEFAULT_VECTOR_TABLE): VectorTableNames {
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new RangeError(
      `PgVectorStore: table must be "name" or "schema.name" of letters, digits and _ (at most 48 each), got "${table}"`,
    );
  }
  const base = parts[parts.length - 1]!;
  const schema = parts.length === 2 ? parts[0]! : null;
  return {
    table,
    schema,
    base,
    qualified: schema ? `"${schema}"."${base}"` : `"${base}"`,
  };
}

/** @throws RangeError unless pgvector's HNSW index can hold vectors of this length (1…2000). */
export function assertPgDimensions(dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    throw new RangeError(
      `PgVectorStore: dimensions must be a whole number from 1 to 2000 (pgvector's HNSW limit), got ${dimensions}`,
    );
  }
}

/**
 * The migration that creates one vectors table: `id` (primary key), `session_id`, `resource`,
 * `cursor`, `payload jsonb`, `embedding vector(dimensions)`, an HNSW index with cosine ops and
 * b-tree indexes for the session and resource filters. It needs the `vector` extension created
 * (`CREATE EXTENSION vector`, done by `PgVectorStore.open` with `ensureSchema`).
 */
export function createVectorTableMigration(
  table: string,
  dimensions: number,
): new () => MigrationInterface {
  const names = vectorTableNames(table);
  assertPgDimensions(dimensions);
  return class CreateVectorTable implements MigrationInterface {
    readonly name = `CreateVectorTable1764690000000_${names.table.replace('.', '_')}`;

    async up(queryRunner: QueryRunner): Promise<void> {
      for (const sql of vectorTableDdl(names, dimensions)) await queryRunner.query(sql);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`DROP TABLE IF EXISTS ${names.qualified}`);
    }
  };
}

/** The statements that create the table and its indexes. */
export function vectorTableDdl(names: VectorTableNames, dimensions: number): string[] {
  const q = names.qualified;
  return [
    ...(names.schema ? [`CREATE SCHEMA IF NOT EXISTS "${names.schema}"`] : []),
    `CREATE TABLE ${q} (
      id text PRIMARY KEY,
      session_id text,
      resource text,
      "cursor" bigint,
      payload jsonb NOT NULL DEFAULT '{}'::jsonb,
      embedding vector(${dimensions}) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX "${names.base}_hnsw" ON ${q} USING hnsw (embedding vector_cosine_ops)`,
    `CREATE INDEX "${names.base}_session" ON ${q} (session_id, "cursor")`,
    `CREATE INDEX "${names.base}_resource" ON ${q} (resource)`,
  ];
}
