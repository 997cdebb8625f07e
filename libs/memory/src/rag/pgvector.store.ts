import type { DataSource, EntityManager } from 'typeorm';
import type { Cursor } from '../core/memory.interface';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { DimensionMismatchError, VectorExtensionMissingError } from './rag.errors';
import {
  assertPgDimensions,
  DEFAULT_VECTOR_TABLE,
  vectorTableDdl,
  vectorTableNames,
  type VectorTableNames,
} from './pgvector-table';
import type { VectorFilter, VectorHit, VectorRecord, VectorStore } from './vector-store.interface';
import {
  assertDeleteFilter,
  assertK,
  assertQueryVector,
  assertRecords,
} from './vector-store.validation';

/** Options of {@link PgVectorStore}. */
export interface PgVectorStoreOptions {
  /** The vectors' length; the table's `vector(n)` column is checked against it. */
  dimensions: number;
  /** `name` or `schema.name`. Default `memory_vectors`. */
  table?: string;
  /**
   * Create the `vector` extension, the table and its indexes when missing (under an advisory
   * lock). Default true; with false, run `createVectorTableMigration(table, dimensions)` in your
   * TypeORM migrations.
   */
  ensureSchema?: boolean;
  /**
   * HNSW candidate list size per query (`hnsw.ef_search`, at least `k`); higher is more exact,
   * slower. Default: the server's (40).
   */
  efSearch?: number;
}

const UPSERT_BATCH = 500;
const SCHEMA_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('agent-memory:pgvector'))";

/**
 * Vectors in PostgreSQL with the pgvector extension: one row per vector, an HNSW index with
 * cosine ops for nearest-neighbour search, b-tree indexes for the session and resource filters.
 * Filtered queries use pgvector's iterative index scans, so a filter does not starve the result.
 * Uses the caller's TypeORM `DataSource` (and never closes it); importing this loads no driver.
 */
export class PgVectorStore implements VectorStore {
  private constructor(
    private readonly dataSource: DataSource,
    private readonly names: VectorTableNames,
    readonly dimensions: number,
    private readonly efSearch: number | null,
  ) {}

  /**
   * Opens the store on `dataSource`, creating what is missing (see `ensureSchema`).
   * @throws VectorExtensionMissingError when the server has no pgvector (it names the script that installs it).
   * @throws DimensionMismatchError when the table holds vectors of another length.
   * @throws RangeError for a bad `table` or `dimensions`, before any SQL.
   */
  static async open(dataSource: DataSource, options: PgVectorStoreOptions): Promise<PgVectorStore> {
    const names = vectorTableNames(options.table ?? DEFAULT_VECTOR_TABLE);
    assertPgDimensions(options.dimensions);
    const efSearch = options.efSearch ?? null;
    if (efSearch !== null && (!Number.isInteger(efSearch) || efSearch < 1 || efSearch > 1000)) {
      throw new RangeError(
        `PgVectorStore: efSearch must be a whole number from 1 to 1000, got ${efSearch}`,
      );
    }
    const store = new PgVectorStore(dataSource, names, options.dimensions, efSearch);
    if (options.ensureSchema ?? true) await store.ensureSchema();
    await store.checkDimensions();
    return store;
  }

  async upsert(records: readonly VectorRecord[]): Promise<void> {
    assertRecords(`vector store "${this.names.table}"`, this.dimensions, records);
    if (records.length === 0) return;
    await pgRequest('upsert vectors', null, () =>
      this.dataSource.transaction(async (manager) => {
        for (let i = 0; i < records.length; i += UPSERT_BATCH) {
          await this.insertBatch(manager, records.slice(i, i + UPSERT_BATCH));
        }
      }),
    );
  }

  async query(
    vector: readonly number[],
    k: number,
    filter: VectorFilter = {},
  ): Promise<VectorHit[]> {
    assertQueryVector(`vector store "${this.names.table}"`, this.dimensions, vector);
    assertK(k);
    const params: unknown[] = [toLiteral(vector)];
    const where = whereClause(filter, params);
    params.push(k);
    const sql =
      `SELECT id, session_id, resource, "cursor", payload, 1 - (embedding <=> $1::vector) AS score ` +
      `FROM ${this.names.qualified} ${where} ORDER BY embedding <=> $1::vector LIMIT $${params.length}`;
    const settings = [
      ...(this.efSearch !== null ? [`SET LOCAL hnsw.ef_search = ${this.efSearch}`] : []),
      // A filter would otherwise leave an HNSW scan short of k rows (the index hands out
      // ef_search candidates before the filter applies); iterative scans go on until k pass.
      ...(where ? ['SET LOCAL hnsw.iterative_scan = relaxed_order'] : []),
    ];
    const rows = await pgRequest('query vectors', filter.session ?? null, () =>
      settings.length === 0
        ? (this.dataSource.query(sql, params) as Promise<HitRow[]>)
        : this.querySettingsScript([...settings, inlineParams(sql, params)]),
    );
    // relaxed_order may return neighbours slightly out of order.
    return rows
      .map((row) => ({
        id: row.id,
        score: Number(row.score),
        session: row.session_id,
        resource: row.resource,
        cursor: row.cursor === null ? null : Number(row.cursor),
        payload: row.payload ?? {},
      }))
      .sort((a, b) => b.score - a.score);
  }

  async delete(filter: VectorFilter): Promise<number> {
    assertDeleteFilter(filter);
    const params: unknown[] = [];
    const where = whereClause(filter, params);
    const [row] = (await pgRequest('delete vectors', filter.session ?? null, () =>
      this.dataSource.query(
        `WITH gone AS (DELETE FROM ${this.names.qualified} ${where} RETURNING 1)
         SELECT count(*) AS removed FROM gone`,
        params,
      ),
    )) as [{ removed: string }];
    return Number(row.removed);
  }

  async lastCursor(session: string): Promise<Cursor | null> {
    const [row] = (await pgRequest('read the last indexed cursor', session, () =>
      this.dataSource.query(
        `SELECT max("cursor") AS last FROM ${this.names.qualified} WHERE session_id = $1`,
        [session],
      ),
    )) as [{ last: string | null }];
    return row.last === null ? null : Number(row.last);
  }

  /**
   * Runs `SET LOCAL` settings and a SELECT in one round trip: one simple-protocol message, which
   * PostgreSQL runs as one implicit transaction (so the settings end with it, also on error).
   */
  private async querySettingsScript(statements: string[]): Promise<HitRow[]> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const client = (await runner.connect()) as {
        query(sql: string): Promise<PgResult | PgResult[]>;
      };
      const results = await client.query(statements.join(';\n'));
      const select = (Array.isArray(results) ? results : [results]).find(
        (r) => r.command === 'SELECT',
      );
      return (select?.rows ?? []) as HitRow[];
    } finally {
      await runner.release();
    }
  }

  /** The store does not own the DataSource: nothing to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private async insertBatch(
    manager: EntityManager,
    records: readonly VectorRecord[],
  ): Promise<void> {
    const params: unknown[] = [];
    const values = records.map((r) => {
      params.push(
        r.id,
        r.session,
        r.resource,
        r.cursor,
        JSON.stringify(r.payload ?? {}),
        toLiteral(r.vector),
      );
      const n = params.length;
      return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n}::vector)`;
    });
    await manager.query(
      `INSERT INTO ${this.names.qualified} (id, session_id, resource, "cursor", payload, embedding) ` +
        `VALUES ${values.join(', ')} ON CONFLICT (id) DO UPDATE SET session_id = EXCLUDED.session_id, ` +
        'resource = EXCLUDED.resource, "cursor" = EXCLUDED."cursor", payload = EXCLUDED.payload, ' +
        'embedding = EXCLUDED.embedding',
      params,
    );
  }

  private async ensureSchema(): Promise<void> {
    if (await this.tableExists()) return;
    await pgRequest('create the vectors table', null, async () => {
      const [available] = (await this.dataSource.query(
        "SELECT 1 AS ok FROM pg_available_extensions WHERE name = 'vector'",
      )) as unknown[];
      if (!available) throw new VectorExtensionMissingError();
      await this.dataSource.transaction(async (manager) => {
        await manager.query(SCHEMA_LOCK_SQL);
        await manager.query('CREATE EXTENSION IF NOT EXISTS vector');
        const [{ exists }] = (await manager.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
          this.names.qualified,
        ])) as [{ exists: boolean }];
        if (exists) return;
        for (const sql of vectorTableDdl(this.names, this.dimensions)) await manager.query(sql);
      });
    });
  }

  private async tableExists(): Promise<boolean> {
    const [{ exists }] = (await pgRequest('look up the vectors table', null, () =>
      this.dataSource.query('SELECT to_regclass($1) IS NOT NULL AS exists', [this.names.qualified]),
    )) as [{ exists: boolean }];
    return exists;
  }

  private async checkDimensions(): Promise<void> {
    const rows = (await pgRequest('check the vectors table', null, () =>
      this.dataSource.query(
        `SELECT atttypmod AS dims FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'`,
        [this.names.qualified],
      ),
    )) as { dims: number }[];
    if (rows.length === 0) {
      throw new RangeError(
        `PgVectorStore: table ${this.names.table} has no "embedding" column: run createVectorTableMigration or open with ensureSchema: true`,
      );
    }
    if (rows[0]!.dims !== this.dimensions) {
      throw new DimensionMismatchError(
        `vector store "${this.names.table}"`,
        rows[0]!.dims,
        this.dimensions,
      );
    }
  }
}

interface HitRow {
  id: string;
  session_id: string | null;
  resource: string | null;
  cursor: string | null;
  payload: Record<string, unknown> | null;
  score: string | number;
}

interface PgResult {
  command: string;
  rows: unknown[];
}

/**
 * `sql` with its `$n` parameters written in as literals, for the simple protocol (which takes
 * none): numbers as they are (checked finite), strings dollar-quoted with a tag they do not
 * contain, so no value can end its quote.
 */
function inlineParams(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = params[Number(n) - 1];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError(`parameter $${n} is not a finite number`);
      return String(value);
    }
    const text = String(value);
    let tag = 'v';
    while (text.includes(`$${tag}$`)) tag += 'v';
    return `$${tag}$${text}$${tag}$`;
  });
}

function toLiteral(vector: readonly number[]): string {
  return `[${vector.join(',')}]`;
}

function whereClause(filter: VectorFilter, params: unknown[]): string {
  const conditions: string[] = [];
  if (filter.session !== undefined) {
    params.push(filter.session);
    conditions.push(`session_id = $${params.length}`);
  }
  if (filter.resource !== undefined) {
    params.push(filter.resource);
    conditions.push(`resource = $${params.length}`);
  }
  if (filter.exclude) {
    params.push(filter.exclude.session, filter.exclude.fromCursor);
    conditions.push(
      `NOT COALESCE(session_id = $${params.length - 1} AND "cursor" >= $${params.length}, false)`,
    );
  }
  return conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
}
