import type { KnownSession } from './nats-session.writer';

/** Sessions a {@link RecentSessions} keeps at most. */
export const RECENT_SESSIONS_MAX = 1024;
/** Bytes of stored values a {@link RecentSessions} keeps at most (64 MiB). */
export const RECENT_SESSIONS_MAX_BYTES = 64 * 1024 * 1024;

/**
 * What the process last read or wrote of its recently written sessions (revision and decoded
 * document), kept after their writer is dropped, so that the next store opened on one (the admin
 * API and `MemoryService.runTurn` open one per call) tries its first write on it instead of reading
 * the value again. Bounded by count and by the values' stored size, least recently kept out first.
 * A remembered revision that is no longer the latest only costs that first write (it loses the
 * race, and the writer reads the key as after any lost race).
 */
export class RecentSessions {
  private readonly sessions = new Map<string, { known: KnownSession; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxSessions = RECENT_SESSIONS_MAX,
    private readonly maxBytes = RECENT_SESSIONS_MAX_BYTES,
  ) {}

  /** Remembers `known` (null forgets the session), `bytes` the size of its stored value. */
  keep(sessionId: string, known: KnownSession | null, bytes: number): void {
    this.forget(sessionId);
    if (known === null || bytes > this.maxBytes) return;
    this.sessions.set(sessionId, { known, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.sessions) {
      if (this.sessions.size <= this.maxSessions && this.bytes <= this.maxBytes) break;
      this.sessions.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /** What was kept of `sessionId`, or null. */
  known(sessionId: string): KnownSession | null {
    return this.sessions.get(sessionId)?.known ?? null;
  }

  /** Forgets `sessionId`. */
  forget(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    if (!entry) return;
    this.sessions.delete(sessionId);
    this.bytes -= entry.bytes;
  }

  /** Sessions kept. */
  get size(): number {
    return this.sessions.size;
  }
}
