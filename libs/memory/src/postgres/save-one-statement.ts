import type { MemoryTableNames } from './memory-table-names';
import { countedCte, lockCte } from './save-statement';

/**
 * The lone writer's statements for a group of one batch (a turn saved alone, the common case):
 * the work of `saveStatementSql` without what only a group of several batches needs, so that a
 * keyed save costs about what an unkeyed one does, and an unkeyed one no key work at all.
 * Parameters: `$1` the session, `$2` the batch (one jsonb array); a keyed one also `$3` the key
 * and `$4` the batch's digest. `locked` is the SQL boolean that tries the session's lock (see
 * `saveStatementSql`); false writes nothing.
 *
 * Returns one row: `locked`; `seqs`, the seqs drawn, ascending; `saved`, the session's `saved`
 * count after the save, null when nothing was stored (for a keyed batch: its key was known).
 */
export interface SaveOneStatements {
  /** One batch without a key: its rows take their seqs from the column's default as they go in. */
  unkeyed: string;
  /**
   * One keyed batch. Seqs are drawn first, then the key is inserted into `<table>_keys` with
   * their range and the digest; `ON CONFLICT DO NOTHING` on the primary key decides against
   * every committed row whatever the statement's snapshot, and the rows go in only when the key
   * was new. A known key stores nothing (the drawn seqs are a gap) and the caller then saves the
   * batch with `saveStatementSql`, which returns the first save's record (replay or refusal).
   */
  keyed: string;
}

/** The single-batch save statements of the tables `names`. */
export function saveOneStatementsSql(names: MemoryTableNames, locked: string): SaveOneStatements {
  const { messages, keys } = names;
  const answer = `SELECT (SELECT ok FROM lock) AS locked,
      (SELECT array_agg(seq ORDER BY seq) FROM added) AS seqs,
      (SELECT saved FROM counted) AS saved`;
  return {
    unkeyed: `WITH ${lockCte(names, locked, false)},
    added AS (
      INSERT INTO ${messages} (session_id, message)
      SELECT $1, m.message
      FROM lock, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS m(message, ord)
      WHERE lock.ok
      ORDER BY m.ord
      RETURNING seq
    ),
    ${countedCte(names, '$1')}
    ${answer}`,
    keyed: `WITH ${lockCte(names, locked)},
    drawn AS MATERIALIZED (
      SELECT m.message, nextval(lock.seq_name) AS seq
      FROM lock, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS m(message, ord)
      WHERE lock.ok
      ORDER BY m.ord
    ),
    keyed AS (
      INSERT INTO ${keys} (session_id, key, first_seq, last_seq, digest)
      SELECT $1, $3::text, min(d.seq), max(d.seq), $4::text FROM drawn d HAVING count(*) > 0
      ON CONFLICT (session_id, key) DO NOTHING
      RETURNING 1
    ),
    added AS (
      INSERT INTO ${messages} (session_id, seq, message)
      SELECT $1, d.seq, d.message FROM drawn d WHERE EXISTS (SELECT FROM keyed)
      RETURNING seq
    ),
    ${countedCte(names, '$1')}
    ${answer}`,
  };
}
