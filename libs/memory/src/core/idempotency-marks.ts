import { batchDigest, decodeIdempotencyRecords, type IdempotencyRecord } from './idempotency';
import type { Cursor } from './memory.interface';
import type { Message } from './message';

/**
 * The key that marks, in a stored JSON array of messages, the first message of a batch saved with
 * an idempotency key: `"idempotencyKey": {"key": "…", "count": 2, "digest": "…"}` (the batch's
 * message count and `batchDigest`). The mark is written with the messages in one write, so a save
 * is never stored without its key. Message readers ignore unknown keys: Phero and earlier versions
 * still read the array; a Phero save writes it back without the marks, which is why the keys are
 * also kept beside the session (see {@link encodeKeySidecar}).
 */
export const IDEMPOTENCY_KEY_MARK = 'idempotencyKey';

/**
 * `stored` (the messages as written, already marked with their save times), with each record of
 * `keys` whose batch starts among them marked on that batch's first message. `first` is the
 * cursor of `stored[0]`. Unmarked messages are returned as they are.
 */
export function markIdempotencyKeys(
  stored: readonly unknown[],
  first: Cursor,
  keys: readonly IdempotencyRecord[] | undefined,
): readonly unknown[] {
  if (!keys || keys.length === 0) return stored;
  const marks = new Map<number, Record<string, unknown>>();
  for (const record of keys) {
    if (record.first === null || record.last === null) continue;
    const at = record.first - first;
    if (at < 0 || at >= stored.length) continue;
    const mark: Record<string, unknown> = {
      key: record.key,
      count: record.last - record.first + 1,
    };
    if (record.digest !== undefined) mark.digest = record.digest;
    marks.set(at, mark);
  }
  if (marks.size === 0) return stored;
  return stored.map((message, i) => {
    const mark = marks.get(i);
    return mark ? { ...(message as object), [IDEMPOTENCY_KEY_MARK]: mark } : message;
  });
}

/**
 * The idempotency records marked in a stored JSON array of messages (see
 * {@link markIdempotencyKeys}), oldest first; `first` is the cursor of `raw[0]`.
 * @throws Error naming the message whose mark does not decode (stores wrap it in `CorruptSessionError`).
 */
export function readIdempotencyMarks(raw: readonly unknown[], first: Cursor): IdempotencyRecord[] {
  const records: IdempotencyRecord[] = [];
  raw.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || !(IDEMPOTENCY_KEY_MARK in item)) return;
    const mark = (item as Record<string, unknown>)[IDEMPOTENCY_KEY_MARK];
    const fields =
      typeof mark === 'object' && mark !== null && !Array.isArray(mark)
        ? (mark as Record<string, unknown>)
        : null;
    const count = fields?.count;
    if (!fields || !Number.isSafeInteger(count) || (count as number) < 1) {
      throw new Error(
        `message ${i} has an "${IDEMPOTENCY_KEY_MARK}" mark that is not { key, count, digest? }`,
      );
    }
    const cursor = first + i;
    const [record] = decodeIdempotencyRecords([
      {
        key: fields.key,
        first: cursor,
        last: cursor + (count as number) - 1,
        digest: fields.digest,
      },
    ]);
    records.push(record!);
  });
  return records;
}

/**
 * The records of `keys` (trusted: read from marks or from the document itself) together with the
 * sidecar's records whose batch is verifiably stored: the messages at the record's cursors (kept
 * from `firstKept` on) have the record's digest. A sidecar record that fails that check belongs to
 * a save that was never stored (a write that lost a race or was cut off), or its messages were
 * rewritten or cleared by another program: it is dropped, so its key stores again. The result is
 * ordered by cursor and keeps the newest `window` records; it is `keys` itself when the sidecar
 * adds nothing.
 */
export function mergeSidecarKeys(
  keys: readonly IdempotencyRecord[],
  sidecar: readonly IdempotencyRecord[],
  messages: readonly Message[],
  firstKept: Cursor,
  window: number,
): readonly IdempotencyRecord[] {
  const known = new Set(keys.map((record) => record.key));
  const verified = sidecar.filter(
    (record) => !known.has(record.key) && storedAt(record, messages, firstKept),
  );
  if (verified.length === 0) return keys;
  const merged = [...keys, ...verified].sort((a, b) => (a.first ?? 0) - (b.first ?? 0));
  return merged.length > window ? merged.slice(merged.length - window) : merged;
}

/** Whether `messages` (kept from cursor `firstKept` on) hold the record's batch at its cursors. */
function storedAt(
  record: IdempotencyRecord,
  messages: readonly Message[],
  firstKept: Cursor,
): boolean {
  if (record.first === null || record.last === null || record.digest === undefined) return false;
  const from = record.first - firstKept;
  const to = record.last - firstKept + 1;
  if (from < 0 || to > messages.length || to <= from) return false;
  return batchDigest(messages.slice(from, to)) === record.digest;
}

/** The text of a key sidecar: the remembered records, oldest first, as a JSON array. */
export function encodeKeySidecar(keys: readonly IdempotencyRecord[] | undefined): string {
  return JSON.stringify(keys ?? []);
}

/**
 * The records of a key sidecar's text. The sidecar is a copy (the marks in the array are written
 * with the messages): empty text (a write a crash cut off) reads as none.
 * @throws Error naming what does not decode (stores wrap it in `CorruptSessionError`).
 */
export function decodeKeySidecar(text: string): IdempotencyRecord[] {
  if (text.trim() === '') return [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`its idempotency keys are not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return decodeIdempotencyRecords(raw);
}
