import { batchDigest } from '../core/idempotency';
import type { Cursor, Entry, Snapshot, StoredSnapshot } from '../core/memory.interface';
import { systemMessage, type Message } from '../core/message';
import type { SessionLine } from './session-line';

/**
 * The text of the message an import puts first when the session's snapshot covers messages the
 * exporting store had already pruned: a snapshot must cover at least one stored message, and this
 * one stands for the pruned ones. It is covered, so no model ever sees it.
 */
export const PRUNED_HISTORY_PLACEHOLDER =
  'Earlier messages were compacted and pruned before this session was exported; the snapshot summary stands for them.';

/** A message to import, with the save time of its batch where the exporting store knew it. */
export interface PlannedMessage {
  message: Message;
  savedAt?: string;
}

/** What importing one session writes, in order: messages (the covered ones first), snapshot, meta. */
export interface ImportPlan {
  messages: PlannedMessage[];
  /** How many of `messages`, from the first, the snapshot covers (0 without a snapshot). */
  covered: number;
  snapshot: Snapshot | null;
}

/** The session as the target store holds it now. */
export interface TargetSession {
  snapshot: StoredSnapshot | null;
  /** The kept log, oldest first. */
  entries: readonly Entry[];
}

/**
 * How far the target already holds the plan: its first `saved` messages are stored (those before
 * `covered` at `knownCursors`, when the target has no snapshot yet), and whether the snapshot is.
 */
export type Alignment =
  | { kind: 'conflict'; reason: string }
  | { kind: 'resume'; saved: number; knownCursors: readonly Cursor[]; snapshotStored: boolean };

/** The plan for one line: its entries in order, a placeholder first when the covered ones were pruned. */
export function planImport(line: SessionLine): ImportPlan {
  const messages: PlannedMessage[] = line.entries.map(({ message, savedAt }) =>
    savedAt === undefined ? { message } : { message, savedAt },
  );
  if (!line.snapshot) return { messages, covered: 0, snapshot: null };
  const upTo = line.snapshot.upTo;
  let covered = line.entries.filter((entry) => entry.cursor <= upTo).length;
  if (covered === 0) {
    messages.unshift({ message: systemMessage(PRUNED_HISTORY_PLACEHOLDER) });
    covered = 1;
  }
  const { summary, pinned } = line.snapshot;
  return { messages, covered, snapshot: pinned ? { summary, pinned } : { summary } };
}

/**
 * Compares what the target holds with the plan, message by message (canonical JSON), so an import
 * run again, or resumed after it stopped half-way, stores nothing twice. A target holding more
 * than the plan (messages appended since) counts as holding it.
 */
export function alignWithTarget(plan: ImportPlan, target: TargetSession): Alignment {
  if (!target.snapshot) {
    const entries = target.entries;
    const common = Math.min(entries.length, plan.messages.length);
    const mismatch = firstMismatch(entries, plan.messages, 0, common);
    if (mismatch !== -1) {
      return { kind: 'conflict', reason: `its message ${mismatch + 1} differs` };
    }
    return {
      kind: 'resume',
      saved: common,
      knownCursors: entries.slice(0, common).map((entry) => entry.cursor),
      snapshotStored: plan.snapshot === null,
    };
  }
  if (!plan.snapshot) return { kind: 'conflict', reason: 'it holds a snapshot the import lacks' };
  if (!sameSnapshot(plan.snapshot, target.snapshot)) {
    return { kind: 'conflict', reason: 'its snapshot differs' };
  }
  const upTo = target.snapshot.upTo;
  const tail = target.entries.filter((entry) => entry.cursor > upTo);
  const common = Math.min(tail.length, plan.messages.length - plan.covered);
  const mismatch = firstMismatch(tail, plan.messages, plan.covered, common);
  if (mismatch !== -1) {
    return {
      kind: 'conflict',
      reason: `its message ${mismatch + 1} after the snapshot differs`,
    };
  }
  return { kind: 'resume', saved: plan.covered + common, knownCursors: [], snapshotStored: true };
}

/**
 * Runs of the plan's messages from `from` that are saved together: consecutive messages saved in
 * one batch at the source (same `savedAt`), never across the snapshot's boundary.
 */
export function importBatches(plan: ImportPlan, from: number): PlannedMessage[][] {
  const batches: PlannedMessage[][] = [];
  let current: PlannedMessage[] = [];
  for (let i = from; i < plan.messages.length; i++) {
    const message = plan.messages[i]!;
    const previous = current.at(-1);
    if (previous && (previous.savedAt !== message.savedAt || i === plan.covered)) {
      batches.push(current);
      current = [];
    }
    current.push(message);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Index (from 0, within the compared run) of the first stored entry unlike the planned message at `offset + i`. */
function firstMismatch(
  stored: readonly Entry[],
  planned: readonly PlannedMessage[],
  offset: number,
  count: number,
): number {
  for (let i = 0; i < count; i++) {
    if (batchDigest([stored[i]!.message]) !== batchDigest([planned[offset + i]!.message])) return i;
  }
  return -1;
}

function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return a.summary === b.summary && batchDigest(a.pinned ?? []) === batchDigest(b.pinned ?? []);
}
