import type { Cursor, StoredSnapshot } from '../core/memory.interface';
import { decodeDocument } from '../core/session-document';

/** The `format` value that marks a session file as a head over a log. */
export const HEAD_FORMAT = 'agent-memory/session-log@1';

/**
 * A remembered idempotency key: the key, the cursors its save stored and the digest of its batch
 * (absent in heads written before digests were kept).
 */
export type KeyRecord =
  | readonly [key: string, first: Cursor, last: Cursor]
  | readonly [key: string, first: Cursor, last: Cursor, digest: string];

/**
 * The small head file `<id>.json` of a session kept in log form: everything but the messages,
 * which are in the append-only log it names. An append writes only the log, so the head's
 * `saved` is the count when the head was last written; the log's last line has the count now.
 */
export interface SessionHead {
  format: typeof HEAD_FORMAT;
  /** The log's file name, in the head's folder (`<id>.log-<generation>.jsonl`). */
  log: string;
  /** The log file's generation: a rewrite (prune, migration) writes the next one. */
  generation: number;
  /** Cursor of the log's first message (the ones before were pruned or summarised). */
  from: Cursor;
  /** Where reads after the snapshot start: the byte offset of the line holding `snapshot.upTo + 1`, and that line's cursor. */
  tail: { offset: number; at: Cursor };
  /** Messages ever saved when the head was written. */
  saved: number;
  snapshot: StoredSnapshot | null;
  meta: Record<string, string>;
  /** Recent idempotency keys saved before `tail.offset` (the ones after it are on their lines). */
  keys: KeyRecord[];
}

/** Whether a parsed session file is a head (and not a plain array or the older single object). */
export function isHead(raw: unknown): boolean {
  return (
    typeof raw === 'object' &&
    raw !== null &&
    !Array.isArray(raw) &&
    (raw as { format?: unknown }).format === HEAD_FORMAT
  );
}

/**
 * Checks a parsed head. Snapshot and metadata go through the same decoder as the other forms.
 * @throws Error saying what is wrong (the caller names the session).
 */
export function decodeHead(session: string, raw: Record<string, unknown>): SessionHead {
  const { log, generation, from, tail, saved, keys } = raw;
  if (typeof log !== 'string' || !/^[^/\\]+\.jsonl$/.test(log)) {
    throw new Error('"log" is not a log file name');
  }
  if (!Number.isSafeInteger(generation) || (generation as number) < 1) {
    throw new Error('"generation" is not a whole number');
  }
  if (!isCursor(from)) throw new Error('"from" is not a cursor');
  if (!Number.isSafeInteger(saved) || (saved as number) < (from as number) - 1) {
    throw new Error('"saved" is not a count of at least the messages before "from"');
  }
  const t = tail as { offset?: unknown; at?: unknown } | null;
  if (typeof t !== 'object' || t === null || !Number.isSafeInteger(t.offset) || !isCursor(t.at)) {
    throw new Error('"tail" is not an offset and a cursor');
  }
  if ((t.offset as number) < 0 || (t.at as number) < (from as number)) {
    throw new Error('"tail" lies before the log');
  }
  if (!Array.isArray(keys) || !keys.every(isKeyRecord)) throw new Error('"keys" is not a key list');
  const doc = decodeDocument(session, { snapshot: raw.snapshot, meta: raw.meta, messages: [] });
  return {
    format: HEAD_FORMAT,
    log,
    generation: generation as number,
    from: from as number,
    tail: { offset: t.offset as number, at: t.at as number },
    saved: saved as number,
    snapshot: doc.snapshot,
    meta: { ...doc.meta },
    keys: keys as KeyRecord[],
  };
}

function isCursor(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

function isKeyRecord(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    (value.length === 3 || (value.length === 4 && typeof value[3] === 'string')) &&
    typeof value[0] === 'string' &&
    Number.isSafeInteger(value[1]) &&
    Number.isSafeInteger(value[2])
  );
}
