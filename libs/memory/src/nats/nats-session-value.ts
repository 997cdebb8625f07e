import { sessionInfo } from '../core/session-info';
import type { KvEntry } from 'nats';
import type { SessionInfo } from '../core/backend.interface';
import {
  EMPTY_DOCUMENT,
  encodeDocument,
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
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * Decodes a KV entry of a session: our JSON envelope, or a plain JSON array of messages as Phero
 * writes them (Go field names). An empty value or JSON `null` is an empty session.
 * @throws CorruptSessionError naming `session` when the value does not decode.
 */
export function loadedSession(
  session: string,
  entry: Pick<KvEntry, 'operation' | 'value' | 'revision' | 'created'> | null,
): LoadedSession {
  if (!entry) return { doc: EMPTY_DOCUMENT, revision: 0, exists: false, updatedAt: null };
  if (entry.operation !== 'PUT') {
    return { doc: EMPTY_DOCUMENT, revision: entry.revision, exists: false, updatedAt: null };
  }
  const doc = parseDocumentText(session, decoder.decode(entry.value), 'the KV value');
  return doc
    ? { doc, revision: entry.revision, exists: true, updatedAt: entry.created }
    : { doc: EMPTY_DOCUMENT, revision: entry.revision, exists: false, updatedAt: null };
}

/**
 * The KV value of a document, compact JSON: the plain array of messages while the session is only
 * a complete log (no snapshot, no metadata, nothing pruned), which is exactly what Phero decodes;
 * else the object `{ messages, snapshot, meta, saved }`. A session goes back to the array once its
 * metadata is removed (a snapshot stays until `clear`).
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
