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
 * Whether two descriptions of one session describe the same stored state: every count, the last
 * write's time, the snapshot and every metadata entry are equal. What a conditional delete
 * (`DeleteSessionOptions.ifUnchanged`) compares: a save changes `messages`, a snapshot
 * `snapshotUpTo`, a prune `stored`, a metadata write `meta`, and each of them `updatedAt`.
 */
export function sameSessionState(a: SessionInfo, b: SessionInfo): boolean {
  return (
    a.id === b.id &&
    a.updatedAt === b.updatedAt &&
    a.hasSnapshot === b.hasSnapshot &&
    sameSessionContent(
      { saved: a.messages, stored: a.stored, snapshotUpTo: a.snapshotUpTo, meta: a.meta },
      b,
    )
  );
}

/**
 * Whether what a store holds of a session (`facts`, without its time) is what `info` describes:
 * the counts, the snapshot's cursor and every metadata entry. A store whose every write changes
 * one of these, and that checks it under a compare-and-swap, needs no time to compare.
 */
export function sameSessionContent(
  facts: Omit<SessionFacts, 'updatedAt'>,
  info: SessionInfo,
): boolean {
  if (
    facts.saved !== info.messages ||
    facts.stored !== info.stored ||
    facts.snapshotUpTo !== info.snapshotUpTo
  ) {
    return false;
  }
  const keys = Object.keys(facts.meta);
  return (
    keys.length === Object.keys(info.meta).length &&
    keys.every((key) => Object.hasOwn(info.meta, key) && facts.meta[key] === info.meta[key])
  );
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
