import { IDEMPOTENCY_KEY_WINDOW } from '../core/idempotency';
import type { MemoryTableNames } from './memory-table-names';
import { NOW_MS } from './sql-now';

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
 * The one statement that saves a group of batches of one session, keyed or not, once `locked`
 * (an SQL boolean, evaluated once before anything is written) is true; false writes nothing.
 * The lone writer's statement passes `pg_try_advisory_xact_lock(...)`; the save procedure,
 * which has waited for the lock, passes `true`.
 *
 * - Seqs are drawn for every message first, in order, so each batch's range is known before it
 *   is stored; a batch that is not stored leaves a gap (seqs are positions, not counts).
 * - Each keyed batch's key is inserted into `<table>_keys` with that range and the batch's digest.
 *   The primary key `(session_id, key)` decides, against every committed row whatever the
 *   statement's snapshot: a new key stores its batch; a known one returns its first save's row
 *   (`ON CONFLICT DO UPDATE` with a no-op set, so that `RETURNING` shows it) and its batch is
 *   not stored. A group never holds one key twice (the caller sees to it): one statement cannot
 *   update one row twice.
 * - The other batches' rows are inserted with their drawn seqs and counted on the sessions row.
 *
 * Returns one row: `locked`; `seqs`, every seq drawn, ascending (batch after batch, in order);
 * `saved`, the session's `saved` count after the save (null when nothing was stored); `seen`,
 * a JSON array of `[key, first_seq, last_seq, digest]` of the keys already known (null when none).
 * Telling a replay from a reused key (other digest) is the caller's.
 */
export function saveStatementSql(
  names: MemoryTableNames,
  inputs: SaveStatementInputs,
  locked: string,
): string {
  const { messages, keys } = names;
  const { session, messages: batch, batchOfMessage, keys: keyOf, digests } = inputs;
  return `WITH ${lockCte(names, locked)},
    drawn AS MATERIALIZED (
      SELECT m.batch, m.message, nextval(lock.seq_name) AS seq
      FROM lock, ROWS FROM (jsonb_array_elements(${batch}), unnest(${batchOfMessage}))
        WITH ORDINALITY AS m(message, batch, ord)
      WHERE lock.ok
      ORDER BY m.ord
    ),
    keyed AS (
      INSERT INTO ${keys} AS k (session_id, key, first_seq, last_seq, digest)
      SELECT ${session}, (${keyOf})[d.batch], min(d.seq), max(d.seq), (${digests})[d.batch]
      FROM drawn d WHERE (${keyOf})[d.batch] IS NOT NULL
      GROUP BY d.batch ORDER BY d.batch
      ON CONFLICT (session_id, key) DO UPDATE SET first_seq = k.first_seq
      RETURNING k.key, k.xmax <> 0 AS seen, k.first_seq, k.last_seq, k.digest
    ),
    added AS (
      INSERT INTO ${messages} (session_id, seq, message)
      SELECT ${session}, d.seq, d.message FROM drawn d
      WHERE NOT EXISTS (SELECT 1 FROM keyed k WHERE k.seen AND k.key = (${keyOf})[d.batch])
      RETURNING 1
    ),
    ${countedCte(names, session)}
    SELECT (SELECT ok FROM lock) AS locked,
      (SELECT array_agg(seq ORDER BY seq) FROM drawn) AS seqs,
      (SELECT saved FROM counted) AS saved,
      (SELECT jsonb_agg(jsonb_build_array(key, first_seq, last_seq, digest)) FROM keyed WHERE seen)
        AS seen`;
}

/**
 * The `lock` CTE every save statement starts with, evaluated once before anything reads it:
 * `ok` (the SQL boolean `locked`), `seq_name` (the messages' sequence, from which the statement
 * draws the seqs before inserting), and the mark that makes the insert trigger leave the rows to
 * the statement's own count.
 */
export function lockCte(names: MemoryTableNames, locked: string): string {
  return `lock AS MATERIALIZED (
      SELECT ${locked} AS ok,
        pg_get_serial_sequence('${names.messages}', 'seq')::regclass AS seq_name,
        set_config('agent_memory.own_insert', 'on', true) AS own
    )`;
}

/**
 * The `counted` CTE every save statement ends with: adds the rows of the `added` CTE (one row
 * each) to the session's counters, creating its row; nothing when none was added. Returns
 * the session's `saved` count after the save.
 */
export function countedCte(names: MemoryTableNames, session: string): string {
  return `counted AS (
      INSERT INTO ${names.sessions} AS s (session_id, saved, stored, updated_at)
      SELECT ${session}, c.n, c.n, ${NOW_MS} FROM (SELECT count(*) AS n FROM added) c WHERE c.n > 0
      ON CONFLICT (session_id) DO UPDATE
        SET saved = s.saved + excluded.saved, stored = s.stored + excluded.stored,
            updated_at = excluded.updated_at
      RETURNING s.saved
    )`;
}

/**
 * Deletes a session's keys older than its newest {@link IDEMPOTENCY_KEY_WINDOW} (`$1` the session).
 * Run after a save that took the session's `saved` count across a multiple of the window: each
 * save pays for it once in that many messages, and at most about twice the window is kept.
 * It commits without waiting for its WAL flush (`synchronous_commit` off for its own transaction):
 * a trim a crash undoes only leaves keys that the next trim deletes, and the save that ran it
 * does not wait for a second flush.
 */
export function trimKeysSql(names: MemoryTableNames, session = '$1'): string {
  const { keys } = names;
  return `WITH unflushed AS MATERIALIZED (
      SELECT set_config('synchronous_commit', 'off', true) AS setting
    )
    DELETE FROM ${keys} old USING unflushed
    WHERE old.session_id = ${session}
      AND coalesce(old.first_seq, 0) < (
        SELECT k.first_seq FROM ${keys} k WHERE k.session_id = ${session}
        ORDER BY k.first_seq DESC NULLS LAST OFFSET ${IDEMPOTENCY_KEY_WINDOW - 1} LIMIT 1
      )`;
}

/** Whether a save that stored `stored` messages, leaving `saved`, should trim the session's keys. */
export function crossedKeyWindow(saved: number, stored: number): boolean {
  return (
    Math.floor(saved / IDEMPOTENCY_KEY_WINDOW) !==
    Math.floor((saved - stored) / IDEMPOTENCY_KEY_WINDOW)
  );
}
