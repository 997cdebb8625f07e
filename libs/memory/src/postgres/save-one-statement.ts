import type { MemoryTableNames } from './memory-table-names';
import { countedCte, lockCte } from './save-statement';

/**
 * The lone writer's statement for a group of one batch (a turn saved alone, the common case),
 * keyed or not: the work of `saveStatementSql` without what only a group of several batches
 * needs (grouping the drawn seqs by batch, an anti-join against the known keys), so that a
 * keyed save costs about what an unkeyed one does. Keyed and unkeyed saves share this one
 * statement: a connection that runs one plan for both keeps it warm (two statements taking turns
 * on one connection cost each save more than the work one of them skips).
 *
 * Parameters: `$1` the session, `$2` the batch (one jsonb array), `$3` its key or NULL, `$4` its
 * digest or NULL. `locked` is the SQL boolean that tries the session's lock (see
 * `saveStatementSql`); false writes nothing. The seqs are drawn first; a key is then inserted
 * into `<table>_keys` with their range and the digest, `ON CONFLICT DO NOTHING` on the primary key
 * deciding against every committed row whatever the statement's snapshot, and the rows go in
 * only without a key or when the key was new. A known key stores nothing (its drawn seqs are a
 * gap): the caller then saves the batch with `saveStatementSql`, which returns the first save's
 * record (replay or refusal).
 *
 * Returns one row: `locked`; `seqs`, the stored rows' seqs, ascending; `saved`, the session's
 * `saved` count after the save, null when nothing was stored (its key was known).
 */
export function saveOneStatementSql(names: MemoryTableNames, locked: string): string {
  const { messages, keys } = names;
  return `WITH ${lockCte(names, locked)},
    drawn AS MATERIALIZED (
      SELECT m.message, nextval(lock.seq_name) AS seq
      FROM lock, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS m(message, ord)
      WHERE lock.ok
      ORDER BY m.ord
    ),
    keyed AS (
      INSERT INTO ${keys} (session_id, key, first_seq, last_seq, digest)
      SELECT $1, $3::text, min(d.seq), max(d.seq), $4::text
      FROM drawn d WHERE $3::text IS NOT NULL HAVING count(*) > 0
      ON CONFLICT (session_id, key) DO NOTHING
      RETURNING 1
    ),
    added AS (
      INSERT INTO ${messages} (session_id, seq, message)
      SELECT $1, d.seq, d.message FROM drawn d WHERE $3::text IS NULL OR EXISTS (SELECT FROM keyed)
      RETURNING seq
    ),
    ${countedCte(names, '$1')}
    SELECT (SELECT ok FROM lock) AS locked,
      (SELECT array_agg(seq ORDER BY seq) FROM added) AS seqs,
      (SELECT saved FROM counted) AS saved`;
}
