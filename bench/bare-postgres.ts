import type { Message } from '@agent-memory/memory';
import type { Pool } from 'pg';

/**
 * The bare PostgreSQL write a turn is compared with: a table of messages and one of session
 * rows, and a two-row `INSERT` that also upserts the session's row (unprepared), in one schema.
 */
export interface BareTurnTables {
  /** Creates the two tables (the schema must exist). */
  create(): Promise<void>;
  /** Saves one turn of `session` as the bare statement. */
  insert(session: string, turn: readonly [Message, Message]): Promise<unknown>;
}

/** The bare turn tables of `schema`, written through `pool`. */
export function bareTurnTables(pool: Pool, schema: string): BareTurnTables {
  const messages = `"${schema}".bare_memory`;
  const sessions = `"${schema}".bare_memory_sessions`;
  return {
    async create() {
      await pool.query(
        `CREATE TABLE ${messages} (session_id text, seq bigserial, message jsonb NOT NULL,
           created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (session_id, seq))`,
      );
      await pool.query(
        `CREATE TABLE ${sessions} (session_id text PRIMARY KEY, saved bigint NOT NULL,
           updated_at timestamptz NOT NULL)`,
      );
      await pool.query(`CREATE INDEX ON ${sessions} (updated_at DESC, session_id)`);
    },
    insert(session, [question, answer]) {
      return pool.query(
        `WITH s AS (
           INSERT INTO ${sessions} AS s (session_id, saved, updated_at) VALUES ($1, 2, now())
           ON CONFLICT (session_id) DO UPDATE SET saved = s.saved + 2, updated_at = now()
         )
         INSERT INTO ${messages} (session_id, message) VALUES ($1, $2), ($1, $3)`,
        [session, JSON.stringify(question), JSON.stringify(answer)],
      );
    },
  };
}
