import type { DataSource } from 'typeorm';
import type { LeaseRecord, LeaseStore } from '../core/lease-store.interface';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { memoryTableNames, type MemoryTableNames } from './memory-table-names';

/** The quoted, schema-qualified name of the leases table of `names` (`<table>_leases`). */
export function leasesTable(names: MemoryTableNames): string {
  const name = `${names.base}_leases`;
  return names.schema ? `"${names.schema}"."${name}"` : `"${name}"`;
}

/**
 * Leases in PostgreSQL, next to the sessions: one row per lease in the `<table>_leases` table
 * that the memory migrations create. A claim is one conditional upsert, ordered after any
 * concurrent claim of the same name by the row lock of `ON CONFLICT`.
 */
export class PostgresLeaseStore implements LeaseStore {
  private readonly table: string;

  /**
   * @param dataSource the backend's DataSource; not closed here.
   * @param table the backend's `table` option; default `conversation_memory`.
   * @throws RangeError when `table` is not a valid name.
   */
  constructor(
    private readonly dataSource: DataSource,
    table?: string,
  ) {
    this.table = leasesTable(memoryTableNames(table));
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async claim(name: string, owner: string, expiresAt: number, now: number): Promise<boolean> {
    const rows = (await pgRequest('claim a lease', null, () =>
      this.dataSource.query(
        `INSERT INTO ${this.table} AS stored (name, owner, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
         WHERE stored.owner = EXCLUDED.owner OR stored.expires_at <= $4
         RETURNING name`,
        [name, owner, expiresAt, now],
      ),
    )) as unknown[];
    return rows.length > 0;
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async release(name: string, owner: string): Promise<void> {
    await pgRequest('release a lease', null, () =>
      this.dataSource.query(`DELETE FROM ${this.table} WHERE name = $1 AND owner = $2`, [
        name,
        owner,
      ]),
    );
  }

  /** @throws PostgresRequestError when the database does not answer. */
  async get(name: string): Promise<LeaseRecord | null> {
    const [row] = (await pgRequest('read a lease', null, () =>
      this.dataSource.query(`SELECT owner, expires_at FROM ${this.table} WHERE name = $1`, [name]),
    )) as { owner: string; expires_at: string }[];
    return row ? { owner: row.owner, expiresAt: Number(row.expires_at) } : null;
  }
}
