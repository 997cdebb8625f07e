/**
 * What every part of the PostgreSQL benchmark (`postgres.bench.ts`) shares: its sizes, the
 * schema it creates (agent-memory's tables and the bare ones compared against), the comparison
 * loop, and the result table and notes the parts add to.
 */
import { PostgresChatMessageHistory } from '@langchain/community/stores/message/postgres';
import { Pool } from 'pg';
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import { benchSize } from './bench-size';
import { measure, type BenchResult } from './harness';

export const DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Sessions each save case spreads its saves over, so that none grows much while measured. */
export const SAVE_POOL = 64;
/** Messages after the snapshot in the retrieve cases. */
export const TAIL = 20;

/** `count` messages of a conversation, user and assistant in turn, numbered from `from`. */
export function history(count: number, from = 0): Message[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return i % 2 === 0
      ? userMessage(`question ${i}: what does the deploy script do when the health check fails?`)
      : assistantMessage(
          `answer ${i}: it rolls back to the previous release and pages the on-call.`,
        );
  });
}

/** Sessions in the listing case. */
export const LISTED = benchSize(10_000, 1_000);

/** Session sizes of the retrieve cases: 1k, then the large one (10k; quick mode 2k). */
export const SMALL = 1000;
export const LARGE = benchSize(10_000, 2_000);

/** Rounds each comparison runs, alternating the subjects; the best round of each counts. */
export const ROUNDS = benchSize(3, 1);

/**
 * Measures every subject `ROUNDS` times, taking turns, and keeps each subject's fastest round:
 * the machine is shared, and a neighbour's burst then skews no single subject.
 */
export async function bestOfRounds(
  cases: { caseName: string; subject: string; fn: () => Promise<unknown> }[],
): Promise<BenchResult[]> {
  const best: (BenchResult | undefined)[] = cases.map(() => undefined);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [n, c] of cases.entries()) {
      const result = await measure(c.caseName, c.subject, c.fn, { timeMs: 400 });
      const p50Ms = Math.min(result.p50Ms ?? Infinity, best[n]?.p50Ms ?? Infinity);
      if (!best[n] || result.meanMs < best[n].meanMs) best[n] = result;
      best[n].p50Ms = p50Ms;
    }
  }
  return best as BenchResult[];
}

/** Writers and turns of the contention case. */
export const WRITERS = benchSize(8, 2);
export const TURNS = benchSize(100, 5);
/**
 * Saves each writer process makes on a session of its own before the timed 100 in the steady-state
 * round: V8 compiles a hot path with its optimising tiers only after hundreds of calls.
 */
export const WARMUP = benchSize(1000, 10);

/** One turn of two messages, numbered `i`. */
export const turn = (i: number): Message[] => [
  userMessage(`new question ${i}`),
  assistantMessage(`new answer ${i}`),
];

/** The running benchmark: its backend, pool, tables, and the results and notes so far. */
export interface PostgresBench {
  backend: PostgresBackend;
  pool: Pool;
  /** The schema everything lives in (dropped by {@link closePostgresBench}). */
  schema: string;
  /** The bare tables: messages, snapshots, sessions (quoted, schema-qualified). */
  bare: string;
  bareSnapshots: string;
  bareSessions: string;
  /** LangChain's history of `sessionId`, in the bench's schema. */
  lc(sessionId: string): PostgresChatMessageHistory;
  /** The previous release's save: the session row's upsert locks it and feeds the INSERT. */
  previousSave(session: string, messages: Message[]): Promise<unknown>;
  results: BenchResult[];
  notes: string[];
}

/** Opens the backend and the pool; the bare tables are made by {@link createBareTables}. */
export async function openPostgresBench(): Promise<PostgresBench> {
  const schema = `bench_${process.pid}_${Date.now().toString(36)}`;
  const backend = await postgresBackend({
    url: DATABASE_URL,
    table: `${schema}.conversation_memory`,
    poolSize: WRITERS + 2,
  });
  const pool = new Pool({ connectionString: DATABASE_URL, max: WRITERS + 2 });
  const bare = `"${schema}".bare_memory`;
  const bareSnapshots = `"${schema}".bare_memory_snapshots`;
  const bareSessions = `"${schema}".bare_memory_sessions`;
  const lcTable = `"${schema}".langchain_chat_histories`;
  const lc = (sessionId: string) =>
    new PostgresChatMessageHistory({ pool, sessionId, tableName: lcTable });
  const previousSave = (session: string, messages: Message[]) =>
    pool.query({
      name: 'previous_save',
      text: `WITH session AS (
          INSERT INTO ${bareSessions} AS s (session_id, saved, updated_at)
          VALUES ($1, $3::bigint, date_trunc('milliseconds', now()))
          ON CONFLICT (session_id) DO UPDATE
            SET saved = s.saved + excluded.saved, updated_at = excluded.updated_at
          RETURNING session_id
        )
        INSERT INTO ${bare} (session_id, message)
        SELECT session.session_id, batch.message
        FROM session, unnest($2::jsonb[]) WITH ORDINALITY AS batch(message, ord)
        ORDER BY batch.ord`,
      values: [session, messages.map((x) => JSON.stringify(x)), messages.length],
    });
  return {
    backend,
    pool,
    schema,
    bare,
    bareSnapshots,
    bareSessions,
    lc,
    previousSave,
    results: [],
    notes: [],
  };
}

/** Creates the bare tables and their index in the bench's schema. */
export async function createBareTables(bench: PostgresBench): Promise<void> {
  const { pool, bare, bareSnapshots, bareSessions } = bench;
  await pool.query(
    `CREATE TABLE ${bare} (session_id text, seq bigserial, message jsonb NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (session_id, seq))`,
  );
  await pool.query(
    `CREATE TABLE ${bareSnapshots} (session_id text PRIMARY KEY, upto_seq bigint NOT NULL,
       snapshot jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  );
  await pool.query(
    `CREATE TABLE ${bareSessions} (session_id text PRIMARY KEY, saved bigint NOT NULL,
       updated_at timestamptz NOT NULL)`,
  );
  await pool.query(`CREATE INDEX ON ${bareSessions} (updated_at DESC, session_id)`);
}

/** Drops the bench's schema and closes what {@link openPostgresBench} opened. */
export async function closePostgresBench(bench: PostgresBench): Promise<void> {
  const { pool, schema, backend } = bench;
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await pool.end();
  await backend.close();
}
