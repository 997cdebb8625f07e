import type { KV } from 'nats';
import { NatsSessionWriter, type SessionWriterOptions } from './nats-session.writer';
import { RecentSessions } from './recent-sessions';

/** The process's writers, per KV handle and session; a writer is dropped once nobody uses it. */
const writers = new WeakMap<KV, Map<string, { writer: NatsSessionWriter; users: number }>>();
/** What dropped writers last knew, per KV handle (one per backend). */
const recentByKv = new WeakMap<KV, RecentSessions>();

/** What the writers of `kv` last knew of their sessions, kept after they are dropped. */
export function recentSessionsOf(kv: KV): RecentSessions {
  let recent = recentByKv.get(kv);
  if (!recent) recentByKv.set(kv, (recent = new RecentSessions()));
  return recent;
}

/**
 * Runs `fn` with the process's writer of `sessionId` on `kv`, creating it (with `opts`) if none is
 * in use: every store open on one session through one KV handle shares one queue. A new writer
 * starts from what the last one of the session knew (see {@link RecentSessions}).
 */
export async function withSessionWriter<T>(
  kv: KV,
  sessionId: string,
  opts: SessionWriterOptions,
  fn: (writer: NatsSessionWriter) => Promise<T>,
): Promise<T> {
  let sessions = writers.get(kv);
  if (!sessions) writers.set(kv, (sessions = new Map()));
  let entry = sessions.get(sessionId);
  if (!entry) {
    const writer = new NatsSessionWriter(kv, sessionId, opts);
    writer.known = recentSessionsOf(kv).known(sessionId);
    sessions.set(sessionId, (entry = { writer, users: 0 }));
  }
  entry.users++;
  try {
    return await fn(entry.writer);
  } finally {
    if (--entry.users === 0) {
      sessions.delete(sessionId);
      recentSessionsOf(kv).keep(sessionId, entry.writer.known, entry.writer.knownBytes);
    }
  }
}
