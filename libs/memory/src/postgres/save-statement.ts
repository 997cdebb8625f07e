import { IDEMPOTENCY_KEY_WINDOW } from '../core/idempotency';
import type { MemoryTableNames } from './memory-table-names';
import { NOW_MS } from './sql-now';

/** What the save statement does with one batch, as it reports it. */
export type BatchState = 'stored' | 'replayed' | 'refused';

/** Where the save statement finds its inputs: `$n` parameters, or the procedure's arguments. */
export interface SaveStatementInputs {
  /** The session id (text). */
  session: string;
  /** Every batch's messages, concatenated in order (one jsonb array). */
  messages: string;
  /** For each message, the 1-based number of its batch (int[], as long as `messages`). */
  batchOfMessage: string;
  /** For each batch, its idempotency key or NULL (text[]). */
  keys: string;
  /** For each batch, its digest (`batchDigest`) or NULL (text[]). */
  digests: string;
}

/**
 * The body of the one statement that saves a group of batches of one session, keyed or not,
 * once `locked` (an SQL boolean, evaluated once before anything is written) is true; false
 * writes nothing. The lone writer's statement passes `pg_try_advisory_xact_lock(...)`; the save
 * procedure, which has waited for the lock, passes `true`.
 *
 * - Seqs are drawn for every message first, in order, so each batch's range is known before it
 *   is stored; a batch that is not stored leaves a gap (seqs are positions, not counts).
 * - Each keyed batch's key is inserted into `<table>_keys` with that range and the batch's digest.
 *   The primary key `(session_id, key)` decides, against every committed row whatever the
 *   statement's snapshot: a new key stores its batch; a known one returns its first save's row
 *   (`ON CONFLICT DO UPDATE` with a no-op set, so `RETURNING` shows it), and the batch is
 *   replayed, or refused when the digests differ. A group never holds one key twice (the caller
 *   sees to it): one statement cannot update one row twice.
 * - The stored batches' rows are inserted with their drawn seqs and counted on the sessions row.
 * - When the session's `saved` count crosses a multiple of {@link IDEMPOTENCY_KEY_WINDOW}, keys
 *   older than the newest {@link IDEMPOTENCY_KEY_WINDOW} are deleted: at most a few hundred are
 *   kept per session, and each save pays for the trim only once in that many messages.
 *
 * Returns one row: `locked`, then per batch in order `states` (a {@link BatchState}), `firsts`
 * and `lasts` (the stored range, or the first save's range for a replay).
 */
export function saveStatementSql(
  names: MemoryTableNames,
  inputs: SaveStatementInputs,
  locked: string,
): string {
  const { messages, sessions, keys } = names;
  const { session, messages: batch, batchOfMessage, keys: keyOf, digests } = inputs;
  const window = IDEMPOTENCY_KEY_WINDOW;
  return `WITH lock AS MATERIALIZED (
      SELECT ${locked} AS ok,
        pg_get_serial_sequence('${messages}', 'seq')::regclass AS seqs,
        set_config('agent_memory.own_insert', 'on', true) AS own
    ),
    drawn AS MATERIALIZED (
      SELECT m.batch, m.message, nextval(lock.seqs) AS seq
      FROM lock, ROWS FROM (jsonb_array_elements(${batch}), unnest(${batchOfMessage}))
        WITH ORDINALITY AS m(message, batch, ord)
      WHERE lock.ok
      ORDER BY m.ord
    ),
    spans AS MATERIALIZED (
      SELECT batch, min(seq) AS first_seq, max(seq) AS last_seq FROM drawn GROUP BY batch
    ),
    keyed AS (
      INSERT INTO ${keys} AS k (session_id, key, first_seq, last_seq, digest)
      SELECT ${session}, (${keyOf})[sp.batch], sp.first_seq, sp.last_seq, (${digests})[sp.batch]
      FROM spans sp WHERE (${keyOf})[sp.batch] IS NOT NULL
      ORDER BY sp.batch
      ON CONFLICT (session_id, key) DO UPDATE SET first_seq = k.first_seq
      RETURNING k.key, k.xmax = 0 AS fresh, k.first_seq, k.last_seq, k.digest
    ),
    outcome AS MATERIALIZED (
      SELECT sp.batch, sp.first_seq, sp.last_seq,
        CASE
          WHEN k.key IS NULL OR k.fresh THEN 'stored'
          WHEN k.digest IS NOT NULL AND (${digests})[sp.batch] IS NOT NULL
            AND k.digest <> (${digests})[sp.batch] THEN 'refused'
          ELSE 'replayed'
        END AS state,
        k.first_seq AS seen_first, k.last_seq AS seen_last
      FROM spans sp LEFT JOIN keyed k ON k.key = (${keyOf})[sp.batch]
    ),
    kept AS MATERIALIZED (
      SELECT d.seq, d.message FROM drawn d JOIN outcome o ON o.batch = d.batch
      WHERE o.state = 'stored'
    ),
    added AS (
      INSERT INTO ${messages} (session_id, seq, message)
      SELECT ${session}, seq, message FROM kept ORDER BY seq
    ),
    tally AS MATERIALIZED (SELECT count(*)::bigint AS n FROM kept),
    counted AS (
      INSERT INTO ${sessions} AS s (session_id, saved, stored, updated_at)
      SELECT ${session}, n, n, ${NOW_MS} FROM tally WHERE n > 0
      ON CONFLICT (session_id) DO UPDATE
        SET saved = s.saved + excluded.saved, stored = s.stored + excluded.stored,
            updated_at = excluded.updated_at
      RETURNING s.saved
    ),
    trimmed AS (
      DELETE FROM ${keys} old
      WHERE old.session_id = ${session}
        AND (SELECT c.saved / ${window} <> (c.saved - t.n) / ${window} FROM counted c, tally t)
        AND old.first_seq < (
          SELECT k.first_seq FROM ${keys} k WHERE k.session_id = ${session}
          ORDER BY k.first_seq DESC OFFSET ${window - 1} LIMIT 1
        )
    )
    SELECT (SELECT ok FROM lock) AS locked,
      (SELECT array_agg(state ORDER BY batch) FROM outcome) AS states,
      (SELECT array_agg(CASE WHEN state = 'stored' THEN first_seq ELSE seen_first END ORDER BY batch)
        FROM outcome) AS firsts,
      (SELECT array_agg(CASE WHEN state = 'stored' THEN last_seq ELSE seen_last END ORDER BY batch)
        FROM outcome) AS lasts`;
}
