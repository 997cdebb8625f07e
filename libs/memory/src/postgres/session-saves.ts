import type { DataSource } from 'typeorm';
import { EMPTY_SAVE_RESULT, replayedResult } from '../core/idempotency';
import type { SaveResult } from '../core/memory.interface';
import { pgRequest } from '../pg-errors/postgres-request.error';
import { sameBatchDigest } from './batch-digest';
import type { BatchOutcome, GroupedBatch } from './save-groups';
import { lockFreeGuessesOf } from './lock-free-guess';
import type { MemoryTableNames } from './memory-table-names';
import { crossedKeyWindow } from './save-statement';
import type { SessionStatements } from './session-statements';

/** What the saves of one `PostgresMemory` run through. */
export interface SessionSaveTarget {
  dataSource: DataSource;
  sessionId: string;
  tables: MemoryTableNames;
  sql: SessionStatements;
  /** Runs one hot-path statement (prepared unless the store's `preparedStatements` is false). */
  query(text: string, values: unknown[]): Promise<unknown[]>;
  /** The store's `earlyLockRelease` option, defaulted. */
  earlyLockRelease: boolean;
}

/**
 * The save statements of one session: a group of batches saved in one statement or procedure
 * call (see `PostgresMemory`), a save with its own time (an import), and the look-up of a key.
 */
export class SessionSaves {
  constructor(private readonly target: SessionSaveTarget) {}

  /**
   * Saves `batches` (one or more callers' batches, keyed or not, no key twice) in order under the
   * session's lock, each key checked and recorded in the statement that saves; one outcome per
   * batch. Resolves once they are durable. First one plain statement that takes the lock only if
   * it is free (a lone writer: the common case), and otherwise one call of the save procedure,
   * which waits for the lock (and, with `earlyLockRelease`, commits early and waits for its flush).
   * What the DataSource's saves learned of the session decides which goes first (see
   * `LockFreeGuesses`).
   */
  async saveGroup(batches: readonly GroupedBatch[]): Promise<BatchOutcome[]> {
    const guesses = lockFreeGuessesOf(this.target.dataSource);
    const session = this.target.tables.lockKey + this.target.sessionId;
    let row: SavedRow | undefined;
    if (guesses.worthTrying(session)) {
      const tried = await this.saveIfLockFree(batches);
      guesses.tried(session, tried.locked);
      if (tried.locked) row = tried;
    } else {
      guesses.skipped(session);
    }
    if (!row) {
      const [called] = (await this.target.query(this.target.sql.saveGroupCall, [
        ...groupParams(this.target.sessionId, batches),
        this.target.earlyLockRelease,
      ])) as [{ out_seqs: string[] | null; out_saved: string | null; out_seen: SeenKey[] | null }];
      row = { seqs: called.out_seqs, saved: called.out_saved, seen: called.out_seen };
    }
    const outcomes = outcomesOf(batches, row);
    await this.trimKeysAfter(row, batches, outcomes);
    return outcomes;
  }

  /**
   * The lone writer's try: one statement that saves `batches` only if the session's lock is
   * free. A group of one batch (a turn saved alone) has a statement of its own that skips what
   * only several batches need (see `saveOneStatementSql`); when its key was known, the group
   * statement runs next and returns the first save's record.
   */
  private async saveIfLockFree(batches: readonly GroupedBatch[]): Promise<TriedRow> {
    const [batch] = batches;
    const { sql, sessionId } = this.target;
    if (batches.length === 1 && batch) {
      const messages = `[${batch.messages.join(',')}]`;
      const [row] = (await this.target.query(sql.saveOneIfLockFree, [
        sessionId,
        messages,
        batch.key ?? null,
        batch.digest ?? null,
      ])) as [Omit<TriedRow, 'seen'>];
      // `saved` null: the key was known and nothing was stored.
      if (!row.locked || row.saved !== null) return { ...row, seen: null };
    }
    const [row] = (await this.target.query(
      sql.saveIfLockFree,
      groupParams(sessionId, batches),
    )) as [TriedRow];
    return row;
  }

  /**
   * After a save that took the session's `saved` count across a multiple of
   * `IDEMPOTENCY_KEY_WINDOW`: deletes its keys older than the newest window of them, once in that
   * many messages rather than in every save's statement.
   */
  private async trimKeysAfter(
    row: SavedRow,
    batches: readonly GroupedBatch[],
    outcomes: readonly BatchOutcome[],
  ): Promise<void> {
    if (row.saved === null) return;
    // Counted from the batches: seqs are shared by every session, so a range is no count.
    const stored = batches.reduce(
      (sum, batch, n) => sum + (outcomes[n]!.state === 'stored' ? batch.messages.length : 0),
      0,
    );
    if (crossedKeyWindow(Number(row.saved), stored)) {
      await this.target.query(this.target.sql.trimKeys, [this.target.sessionId]);
    }
  }

  /**
   * A save with a `savedAt` (an import): the session's lock, the save statement, then the stored
   * rows' `created_at`, in one transaction.
   */
  saveAt(batch: GroupedBatch, savedAt: string): Promise<BatchOutcome> {
    return this.target.dataSource.transaction(async (tx) => {
      await tx.query(this.target.sql.lockSession, [this.target.sessionId]);
      // The lock is this transaction's already: the statement's try takes it again at once.
      const [row] = (await tx.query(
        this.target.sql.saveIfLockFree,
        groupParams(this.target.sessionId, [batch]),
      )) as [SavedRow];
      const [outcome] = outcomesOf([batch], row) as [BatchOutcome];
      if (outcome.state === 'stored') {
        await tx.query(this.target.sql.setSavedAt, [
          this.target.sessionId,
          outcome.first,
          outcome.last,
          savedAt,
        ]);
      }
      return outcome;
    });
  }

  /** An empty keyed save: the first save's result when the key is remembered, else nothing. */
  async lookUpKey(key: string): Promise<SaveResult> {
    const rows = (await pgRequest('read idempotency keys', this.target.sessionId, () =>
      this.target.query(this.target.sql.idempotencyKey, [this.target.sessionId, key]),
    )) as { first_seq: string | null; last_seq: string | null }[];
    const [row] = rows;
    if (!row) return EMPTY_SAVE_RESULT;
    return replayedResult({ key, first: cursorOf(row.first_seq), last: cursorOf(row.last_seq) });
  }
}

/** A key the save statement found known: `[key, first_seq, last_seq, digest]`. */
type SeenKey = [string, number | null, number | null, string | null];

/** What the save statement returns (see `saveStatementSql`; bigints as strings). */
interface SavedRow {
  seqs: string[] | null;
  saved: string | null;
  seen: SeenKey[] | null;
}

/** What a lone writer's save statement returns: also whether it took the lock. */
type TriedRow = SavedRow & { locked: boolean };

/** The save statement's parameters for `batches`: session, messages, batch of each, keys, digests. */
function groupParams(sessionId: string, batches: readonly GroupedBatch[]): unknown[] {
  const texts: string[] = [];
  const batchOf: number[] = [];
  for (const [n, batch] of batches.entries()) {
    for (const text of batch.messages) {
      texts.push(text);
      batchOf.push(n + 1);
    }
  }
  return [
    sessionId,
    `[${texts.join(',')}]`,
    batchOf,
    batches.map((batch) => batch.key ?? null),
    batches.map((batch) => batch.digest ?? null),
  ];
}

/**
 * What became of each of `batches` in the save statement's `row`: a batch whose key was known is
 * replayed with the first save's cursors (refused when the digests differ: the key came with
 * other messages; a record without a digest predates them and replays); any other was stored,
 * on the seqs drawn for it (each batch's, in order, ascending).
 */
function outcomesOf(batches: readonly GroupedBatch[], row: SavedRow): BatchOutcome[] {
  const seqs = (row.seqs ?? []).map(Number);
  const seen = new Map((row.seen ?? []).map((known) => [known[0], known]));
  let at = 0;
  return batches.map((batch) => {
    const drawn = seqs.slice(at, at + batch.messages.length);
    at += batch.messages.length;
    const known = batch.key === undefined ? undefined : seen.get(batch.key);
    if (!known) return { state: 'stored', first: drawn[0] ?? null, last: drawn.at(-1) ?? null };
    const [, first, last, digest] = known;
    const same = sameBatchDigest(digest, batch.digest, batch.legacyDigest);
    return { state: same ? 'replayed' : 'refused', first, last };
  });
}

/** A bigint column (a string from `pg`) as a cursor. */
function cursorOf(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}
