import { CorruptSessionError } from './errors';
import {
  EMPTY_SAVE_RESULT,
  IDEMPOTENCY_KEY_WINDOW,
  decodeIdempotencyRecords,
  findIdempotencyRecord,
  batchDigest,
  rememberIdempotencyRecord,
  replayOrRefuse,
  type IdempotencyRecord,
} from './idempotency';
import type {
  Cursor,
  EntriesQuery,
  Entry,
  SaveResult,
  Snapshot,
  StoredSnapshot,
} from './memory.interface';
import type { Message } from './message';
import { decodeMessages } from './message.codec';
import { markIdempotencyKeys, readIdempotencyMarks } from './idempotency-marks';
import { keepsWholeLog } from './kept-log';
import { assertMetaEntry } from './session-meta';
import {
  knownTimes,
  markSavedTimes,
  readSavedTimes,
  timedEntry,
  timesFor,
  type SavedTimes,
} from './saved-times';
import { assertSnapshotSwap, storedSnapshot } from './snapshot';

/**
 * A whole session as one value: what the in-process, JSON-file and NATS stores keep. The pure
 * transitions below are the one implementation of the contract's rules for those stores; each
 * store only adds how the document is persisted and how concurrent writers are serialised.
 *
 * Kept messages are always a contiguous suffix of the log, so cursors are derived: the last kept
 * message has cursor `saved` (the count ever saved) and the first one `saved - messages.length + 1`.
 */
export interface SessionDocument {
  readonly messages: readonly Message[];
  /** Messages ever saved: the cursor of the last message. */
  readonly saved: number;
  readonly snapshot: StoredSnapshot | null;
  readonly meta: Readonly<Record<string, string>>;
  /** The newest keyed saves, oldest first (at most `IDEMPOTENCY_KEY_WINDOW`). Absent: none. */
  readonly keys?: readonly IdempotencyRecord[];
  /** When each kept message's batch was saved, parallel to `messages`. Absent: none known. */
  readonly savedAt?: SavedTimes;
}

export const EMPTY_DOCUMENT: SessionDocument = Object.freeze({
  messages: Object.freeze([]) as readonly Message[],
  saved: 0,
  snapshot: null,
  meta: Object.freeze({}),
});

export function firstCursor(doc: SessionDocument): Cursor {
  return doc.saved - doc.messages.length + 1;
}

export function lastCursor(doc: SessionDocument): Cursor | null {
  return doc.messages.length > 0 ? doc.saved : null;
}

/** Kept messages with their cursors. */
export function documentEntries(doc: SessionDocument): Entry[] {
  const first = firstCursor(doc);
  return doc.messages.map((message, index) =>
    timedEntry(first + index, message, doc.savedAt?.[index]),
  );
}

/** One page of the kept entries, oldest first (see `SessionLog.entries`). */
export function documentEntriesPage(doc: SessionDocument, query: EntriesQuery = {}): Entry[] {
  const first = firstCursor(doc);
  const start = query.after === undefined ? 0 : Math.max(0, query.after - first + 1);
  const end = query.limit === undefined ? doc.messages.length : start + Math.max(0, query.limit);
  return doc.messages
    .slice(start, end)
    .map((message, i) => timedEntry(first + start + i, message, doc.savedAt?.[start + i]));
}

/** The stored entries after the snapshot, as `loadSnapshot` returns them. */
export function documentTail(doc: SessionDocument): Entry[] {
  const upTo = doc.snapshot?.upTo ?? 0;
  const skip = Math.max(0, upTo - firstCursor(doc) + 1);
  return documentEntries(doc).slice(skip);
}

/**
 * Appends a validated batch, saved at `savedAt` (an ISO time; undefined: unknown). With
 * `capacity`, only the newest `capacity` messages are kept (FIFO eviction; none in a session that
 * keeps its whole log, see `KEEP_LOG_META_KEY`); cursors keep counting through it.
 */
export function appendToDocument(
  doc: SessionDocument,
  messages: readonly Message[],
  capacity = Infinity,
  savedAt?: string,
): SessionDocument {
  const combined = [...doc.messages, ...messages];
  const limit = keepsWholeLog(doc.meta) ? Infinity : capacity;
  const drop = combined.length > limit ? combined.length - limit : 0;
  const kept = drop > 0 ? combined.slice(drop) : combined;
  const times = knownTimes([
    ...timesFor(doc.savedAt, doc.messages.length),
    ...messages.map(() => savedAt),
  ]);
  return withTimes(
    { ...doc, messages: kept, saved: doc.saved + messages.length },
    times?.slice(drop),
  );
}

/** `doc` with `times` as its save times (dropped when none is known). */
function withTimes(doc: SessionDocument, times: SavedTimes | undefined): SessionDocument {
  const { savedAt: _, ...rest } = doc;
  const known = knownTimes(times);
  return known ? { ...rest, savedAt: known } : rest;
}

/**
 * A save of a validated, non-empty batch: appends it (see {@link appendToDocument}) and, with an
 * idempotency key, remembers the key with the cursors stored and the batch's digest. A key the
 * document already holds stores nothing: `doc` is then null and `result` the first save's, with
 * `replayed: true`; with other messages than the first save's it throws
 * `IdempotencyKeyReusedError` (naming `opts.session`). `opts.digest`: the batch's digest, when
 * the caller computed it already.
 */
export function saveToDocument(
  doc: SessionDocument,
  messages: readonly Message[],
  opts: {
    capacity?: number;
    idempotencyKey?: string;
    session?: string;
    digest?: string;
    /** The batch's save time (see `SaveOptions.savedAt`); undefined: unknown. */
    savedAt?: string;
  } = {},
): { doc: SessionDocument | null; result: SaveResult } {
  const key = opts.idempotencyKey;
  const seen = key === undefined ? undefined : findIdempotencyRecord(doc.keys, key);
  const digest =
    key === undefined || messages.length === 0 ? undefined : (opts.digest ?? batchDigest(messages));
  if (seen) return { doc: null, result: replayOrRefuse(opts.session ?? '', seen, digest) };
  if (messages.length === 0) return { doc: null, result: EMPTY_SAVE_RESULT };
  const appended = appendToDocument(doc, messages, opts.capacity, opts.savedAt);
  const result: SaveResult = { first: doc.saved + 1, last: appended.saved, replayed: false };
  if (key === undefined) return { doc: appended, result };
  const keys = rememberIdempotencyRecord(doc.keys, {
    key,
    first: result.first,
    last: result.last,
    digest,
  });
  return { doc: { ...appended, keys }, result };
}

/**
 * Whether `doc`, which does not hold the key of a save of `messages` planned at cursors
 * `planned.first`…`planned.last`, proves that this save was not stored (its write went
 * unanswered and a write on the same revision was stored: this one or another writer's).
 * Proved when the remembered keys still reach back to `planned.first` (the save's key would be
 * among them), when fewer messages were ever saved than the save would have made, or when what
 * is stored at those cursors differs from `messages`. Not proved (false) when the key may have
 * left the window of {@link IDEMPOTENCY_KEY_WINDOW} keys and identical messages, or none (pruned),
 * are stored there.
 */
export function provesNotStored(
  doc: SessionDocument,
  planned: SaveResult,
  messages: readonly Message[],
): boolean {
  const { first, last } = planned;
  if (first === null || last === null) return false;
  const keys = doc.keys ?? [];
  const oldest = keys[0]?.first;
  if (keys.length < IDEMPOTENCY_KEY_WINDOW || (oldest != null && oldest <= first)) return true;
  if (doc.saved < last) return true;
  const at = first - firstCursor(doc);
  if (at < 0) return false;
  // Stored messages are read back through the codec: compare ours in that same form.
  const readBack = (m: readonly Message[]) =>
    JSON.stringify(decodeMessages(JSON.parse(JSON.stringify(m))));
  return readBack(doc.messages.slice(at, at + messages.length)) !== readBack(messages);
}

/**
 * Swaps in a snapshot if `prev` is still the latest one (see `SnapshotStore.saveSnapshot`).
 * With `prune`, drops the messages the snapshot covers in the same step, unless the session
 * keeps its whole log (`KEEP_LOG_META_KEY`).
 */
export function snapshotDocument(
  session: string,
  doc: SessionDocument,
  snapshot: Snapshot,
  upTo: Cursor,
  prev: StoredSnapshot | null,
  opts: { prune: boolean; now: Date },
): { doc: SessionDocument; stored: StoredSnapshot } {
  assertSnapshotSwap(session, doc.snapshot, prev, upTo, lastCursor(doc));
  const stored = storedSnapshot(snapshot, upTo, opts.now);
  const swapped = { ...doc, snapshot: stored };
  if (!opts.prune || keepsWholeLog(doc.meta)) return { doc: swapped, stored };
  return { doc: dropOldest(swapped, Math.max(0, upTo - firstCursor(doc) + 1)), stored };
}

/** Drops the `count` oldest kept messages (with their save times); the count ever saved stays. */
export function dropOldest(doc: SessionDocument, count: number): SessionDocument {
  return withTimes({ ...doc, messages: doc.messages.slice(count) }, doc.savedAt?.slice(count));
}

/**
 * Sets or (with '') removes one metadata key.
 * @throws InvalidMetaError for a key or value no store can keep (see `assertMetaEntry`).
 */
export function setDocumentMeta(doc: SessionDocument, key: string, value: string): SessionDocument {
  assertMetaEntry(key, value);
  const meta = { ...doc.meta };
  if (value === '') delete meta[key];
  else meta[key] = value;
  return { ...doc, meta };
}

/**
 * A document is stored as a plain array while it is nothing more than a complete log: no
 * snapshot, no metadata, nothing evicted or pruned. Idempotency keys do not change that: they are
 * marks on the messages (see `IDEMPOTENCY_KEY_MARK`).
 */
export function isPlainLog(doc: SessionDocument): boolean {
  return (
    doc.snapshot === null && Object.keys(doc.meta).length === 0 && doc.saved === doc.messages.length
  );
}

/**
 * Whether a plain log may have lost its idempotency key marks: it holds messages and not one mark
 * (neither a key nor a save time, which every batch this library saves carries). Such an array
 * was last written by another program (a Phero save writes the array back without unknown
 * fields), so its keys are to be read from the copy kept beside the session. An array with a
 * mark was last written here, with every remembered key marked on it.
 */
export function mayHaveLostKeyMarks(doc: SessionDocument): boolean {
  return (
    isPlainLog(doc) &&
    doc.messages.length > 0 &&
    (doc.keys?.length ?? 0) === 0 &&
    doc.savedAt === undefined
  );
}

/**
 * The JSON form: a plain array while {@link isPlainLog}, its keyed batches marked on their first
 * message (see `IDEMPOTENCY_KEY_MARK`), else an object of `messages`, `snapshot`, `meta`, `saved`
 * and (when there are any) `idempotencyKeys`. Either way the messages carry their save times as
 * marks (see `SAVED_AT_MARK`). Readers of messages skip both marks.
 */
export function encodeDocument(
  doc: SessionDocument,
  opts: { alwaysObject?: boolean } = {},
): unknown {
  const messages = markSavedTimes(doc.messages, doc.savedAt);
  if (!opts.alwaysObject && isPlainLog(doc)) return markIdempotencyKeys(messages, 1, doc.keys);
  const encoded: Record<string, unknown> = {
    messages,
    snapshot: doc.snapshot,
    meta: doc.meta,
    saved: doc.saved,
  };
  if (doc.keys && doc.keys.length > 0) encoded.idempotencyKeys = doc.keys;
  return encoded;
}

/**
 * Reads a stored document from its JSON text (see {@link decodeDocument}). Empty text and `null`
 * (what Phero leaves after a clear) hold no session: the result is then null.
 * @param where names what holds the text in error messages, such as `the file`.
 * @throws CorruptSessionError naming the session when the text is not JSON or not a session.
 */
export function parseDocumentText(
  session: string,
  text: string,
  where: string,
): SessionDocument | null {
  if (text.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CorruptSessionError(
      session,
      `${where} is not valid JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return parsed === null ? null : decodeDocument(session, parsed);
}

/**
 * Reads a stored document: our object form, a plain array of messages (ours, with the keys marked
 * on it, or Phero's), with keys matched case-insensitively.
 * @throws CorruptSessionError naming the session and what did not decode.
 */
export function decodeDocument(session: string, raw: unknown): SessionDocument {
  try {
    if (Array.isArray(raw)) {
      const messages = decodeMessages(raw);
      const keys = readIdempotencyMarks(raw, 1);
      const doc: SessionDocument = { messages, saved: messages.length, snapshot: null, meta: {} };
      return withTimes(keys.length > 0 ? { ...doc, keys } : doc, readSavedTimes(raw));
    }
    if (typeof raw !== 'object' || raw === null) throw new Error('expected an array or an object');
    const fields = new Map(Object.entries(raw).map(([key, value]) => [key.toLowerCase(), value]));
    const messagesRaw = fields.get('messages') ?? [];
    if (!Array.isArray(messagesRaw)) throw new Error('"messages" is not an array');
    const messages = decodeMessages(messagesRaw);
    const savedRaw = fields.get('saved') ?? messages.length;
    if (!Number.isSafeInteger(savedRaw) || (savedRaw as number) < messages.length) {
      throw new Error('"saved" is not a count of at least the kept messages');
    }
    const doc: SessionDocument = {
      messages,
      saved: savedRaw as number,
      snapshot: decodeStoredSnapshot(fields.get('snapshot')),
      meta: decodeMeta(fields.get('meta')),
    };
    const keys = decodeIdempotencyRecords(fields.get('idempotencykeys'));
    return withTimes(keys.length > 0 ? { ...doc, keys } : doc, readSavedTimes(messagesRaw));
  } catch (error) {
    if (error instanceof CorruptSessionError) throw error;
    throw new CorruptSessionError(session, (error as Error).message, { cause: error });
  }
}

function decodeStoredSnapshot(raw: unknown): StoredSnapshot | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('"snapshot" is not an object');
  const fields = new Map(Object.entries(raw).map(([key, value]) => [key.toLowerCase(), value]));
  const summary = fields.get('summary');
  const upTo = fields.get('upto');
  const createdAt = fields.get('createdat');
  if (typeof summary !== 'string') throw new Error('snapshot.summary is not a string');
  if (!Number.isSafeInteger(upTo)) throw new Error('snapshot.upTo is not a cursor');
  if (typeof createdAt !== 'string') throw new Error('snapshot.createdAt is not a string');
  const pinnedRaw = fields.get('pinned') ?? [];
  if (!Array.isArray(pinnedRaw)) throw new Error('snapshot.pinned is not an array');
  const pinned = decodeMessages(pinnedRaw, 'snapshot.pinned');
  const stored: StoredSnapshot = { summary, upTo: upTo as number, createdAt };
  if (pinned.length > 0) stored.pinned = pinned;
  return stored;
}

function decodeMeta(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('"meta" is not an object');
  const meta: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw new Error(`meta "${key}" is not a string`);
    meta[key] = value;
  }
  return meta;
}
