import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import type { QueryConfig } from 'pg';
import { isoTimestamps } from './iso-timestamps';

interface PgPool {
  query(config: QueryConfig): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one hot-path statement (save, retrieve, list, metadata) as a named prepared statement on
 * the DataSource's own `pg` pool. Why not `dataSource.query`: it cannot name a statement, and
 * planning the save's upsert-and-insert on every call cost about a third of a save
 * (docs/benchmarks.md). Statements in transactions still go through TypeORM.
 *
 * Its `timestamptz` columns arrive as ISO 8601 text (see {@link isoTimestamps}), not as `Date`.
 *
 * With `prepared` false the statement is sent unnamed: for a pooler that does not keep named
 * statements across transactions (PgBouncer in transaction mode before 1.21, or without
 * `max_prepared_statements`).
 */
export async function preparedQuery(
  dataSource: DataSource,
  text: string,
  values: unknown[],
  prepared = true,
): Promise<unknown[]> {
  const pool = (dataSource.driver as PostgresDriver).master as PgPool;
  const name = prepared ? statementName(text) : undefined;
  return (await pool.query({ name, text, values, types: isoTimestamps })).rows;
}

/** Names by statement text: the hot path hashes each text once per process, not once a call. */
const names = new Map<string, string>();

/** The name is derived from the text, so every connection of the pool prepares it once. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `agent_memory_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}
