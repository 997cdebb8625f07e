import type { SessionInfo } from './backend.interface';
import type { Cursor } from './memory.interface';
import { CorruptSessionError } from './errors';

/** What every store knows about a session, in its own terms, for {@link sessionInfo}. */
export interface SessionFacts {
  /** Messages ever saved. */
  saved: number;
  /** Messages kept now. */
  stored: number;
  /** The last write: a `Date`, or the ISO 8601 text `Date#toISOString` writes. */
  updatedAt: Date | string;
  /** The cursor the latest snapshot covers up to, or null without one. */
  snapshotUpTo: Cursor | null;
  meta: Readonly<Record<string, string>>;
}

/** The one way a store describes a session in a list (a copy of `meta`, the time as ISO 8601). */
export function sessionInfo(id: string, facts: SessionFacts): SessionInfo {
  return {
    id,
    messages: facts.saved,
    stored: facts.stored,
    updatedAt:
      typeof facts.updatedAt === 'string' ? facts.updatedAt : facts.updatedAt.toISOString(),
    hasSnapshot: facts.snapshotUpTo !== null,
    snapshotUpTo: facts.snapshotUpTo,
    meta: { ...facts.meta },
  };
}

/**
 * A list skips what does not decode (it stays for `inspect` and `open` to report): `read`'s
 * result, or null when it throws {@link CorruptSessionError}. Other errors pass through.
 */
export async function unlessCorrupt<T>(
  read: () => Promise<T | null> | T | null,
): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof CorruptSessionError) return null;
    throw error;
  }
}
