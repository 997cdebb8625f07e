/** What a head written for a loaded session in log form records: where its tail starts, its keys. */
import type { StoredSnapshot } from '../core/memory.interface';
import type { KeyRecord, SessionHead } from './session-head';
import type { SessionState } from './session-state';

/** The tail position for `snapshot` in a loaded log: the line holding `upTo + 1`, or the log's end. */
export function tailOf(state: SessionState, snapshot: StoredSnapshot | null): SessionHead['tail'] {
  const log = state.log!;
  if (!snapshot) return { offset: 0, at: state.from };
  const next = snapshot.upTo + 1;
  if (next > state.saved) return { offset: log.end, at: state.saved + 1 };
  const line = log.lines.find((l) => l.at <= next && next < l.at + l.count);
  // The snapshot in force when loaded starts the window, and a new one only moves forward.
  return line ? { offset: line.offset, at: line.at } : log.head.tail;
}

/** A session's remembered idempotency keys as stored in a head, oldest first. */
export function keyRecords(state: SessionState): KeyRecord[] {
  return [...state.keys.values()].map(({ key, first, last, digest }): KeyRecord =>
    digest === undefined ? [key, first!, last!] : [key, first!, last!, digest],
  );
}
