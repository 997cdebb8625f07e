import { sessionInfo } from '../core/session-info';
import type { KvEntry } from 'nats';
import type { SessionInfo } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import { IDEMPOTENCY_KEY_WINDOW } from '../core/idempotency';
import { decodeKeySidecar, encodeKeySidecar, mergeSidecarKeys } from '../core/idempotency-marks';
import {
  EMPTY_DOCUMENT,
  encodeDocument,
  isPlainLog,
  mayHaveLostKeyMarks,
  parseDocumentText,
  type SessionDocument,
} from '../core/session-document';

/** A session as read from its KV key. */
export interface LoadedSession {
  doc: SessionDocument;
  /** The revision to compare-and-swap against; 0 when the key was never written. */
  revision: number;
  /** False when the key is absent or purged (the session is as if new). */
  exists: boolean;
  /** The `created` time of the entry's revision: the session's `updatedAt`. Null when absent. */
  updatedAt: Date | null;
  /**
   * The value is an object an earlier version wrote for its idempotency keys alone: the next
   * write makes it the array and must write the key copy too, whatever it saves.
   */
  keyCopyStale?: boolean;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** What a session's KV entries are read as (the parts of a `KvEntry` used). */
export type SessionEntry = Pick<KvEntry, 'operation' | 'value' | 'revision' | 'created'>;

/**
 * The KV key holding a copy of a session's idempotency keys: `_idempotency.<session id>`, which
 * no session id can be (they start with a letter or a digit), so lists never show it. The keys
 * themselves are marked on the messages of the session's value (see `IDEMPOTENCY_KEY_MARK`),
 * written in the same compare-and-swap; the copy is what remains of them once a Phero process
 * rewrites the value without the marks.
 */
export function keySidecarOf(session: string): string {
  return `_idempotency.${session}`;
}

/**
 * Decodes a KV entry of a session: our JSON envelope, or a plain JSON array of messages as Phero
 * writes them (Go field names). An empty value or JSON `null` is an empty session. With the
 * entry of its key copy (see {@link keySidecarOf}), an array that lost its key marks (see
 * `mayHaveLostKeyMarks`) remembers the copy's keys whose messages are still stored at their
 * cursors.
 * @throws CorruptSessionError naming `session` when the value or the key copy does not decode.
 */
export function loadedSession(
  session: string,
  entry: SessionEntry | null,
  sidecar?: SessionEntry | null,
): LoadedSession {
  if (!entry) return { doc: EMPTY_DOCUMENT, revision: 0, exists: false, updatedAt: null };
  if (entry.operation !== 'PUT') {
    return { doc: EMPTY_DOCUMENT, revision: entry.revision, exists: false, updatedAt: null };
  }
  const text = decoder.decode(entry.value);
  const parsed = parseDocumentText(session, text, 'the KV value');
  if (!parsed) {
    return { doc: EMPTY_DOCUMENT, revision: entry.revision, exists: false, updatedAt: null };
  }
  const doc = withKeyCopy(session, parsed, sidecar ?? null);
  const loaded = { doc, revision: entry.revision, exists: true, updatedAt: entry.created };
  const keyedObject =
    (doc.keys?.length ?? 0) > 0 && isPlainLog(doc) && text.trimStart().startsWith('{');
  return keyedObject ? { ...loaded, keyCopyStale: true } : loaded;
}

/**
 * `doc` with the verified keys of its copy, when it may have lost its marks (an object holds its
 * own keys; a marked array was written here, all its keys marked).
 */
function withKeyCopy(
  session: string,
  doc: SessionDocument,
  sidecar: SessionEntry | null,
): SessionDocument {
  if (!sidecar || sidecar.operation !== 'PUT' || !mayHaveLostKeyMarks(doc)) return doc;
  let copy;
  try {
    copy = decodeKeySidecar(decoder.decode(sidecar.value));
  } catch (error) {
    throw new CorruptSessionError(session, (error as Error).message, { cause: error });
  }
  if (copy.length === 0) return doc;
  const own = doc.keys ?? [];
  const keys = mergeSidecarKeys(own, copy, doc.messages, 1, IDEMPOTENCY_KEY_WINDOW);
  return keys === own ? doc : { ...doc, keys };
}

/** The value of a session's key copy (see {@link keySidecarOf}). */
export function encodeKeySidecarValue(doc: SessionDocument): Uint8Array {
  return encoder.encode(encodeKeySidecar(doc.keys));
}

/**
 * The KV value of a document, compact JSON: the plain array of messages while the session is only
 * a complete log (no snapshot, no metadata, nothing pruned), which is exactly what Phero decodes,
 * idempotency keys or not (they are marks on the messages); else the object
 * `{ messages, snapshot, meta, saved, idempotencyKeys }`. A session goes back to the array once
 * its metadata is removed (a snapshot stays until `clear`).
 */
export function encodeSessionValue(doc: SessionDocument): Uint8Array {
  return encoder.encode(JSON.stringify(encodeDocument(doc)));
}

/** What a session list shows; null when the key holds no session. */
export function sessionInfoOf(id: string, loaded: LoadedSession): SessionInfo | null {
  if (!loaded.exists || !loaded.updatedAt) return null;
  const { doc } = loaded;
  return sessionInfo(id, {
    saved: doc.saved,
    stored: doc.messages.length,
    updatedAt: loaded.updatedAt,
    snapshotUpTo: doc.snapshot?.upTo ?? null,
    meta: doc.meta,
  });
}
