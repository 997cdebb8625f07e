import { setImmediate } from 'node:timers/promises';
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
export async function alignWithTarget(plan: ImportPlan, target: TargetSession): Promise<Alignment> {
  if (!target.snapshot) {
    const entries = target.entries;
    const common = Math.min(entries.length, plan.messages.length);
    const mismatch = await firstMismatch(entries, plan.messages, 0, common);
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
  const mismatch = await firstMismatch(tail, plan.messages, plan.covered, common);
  if (mismatch !== -1) {
    return {
      kind: 'conflict',
      reason: `its message ${mismatch + 1} after the snapshot differs`,
    };
  }
  return { kind: 'resume', saved: plan.covered + common, knownCursors: [], snapshotStored: true };
}

/**
 * Most messages one imported batch saves: the most one append of the admin API takes. A source
 * batch larger than that (one line of 150,000 messages saved at once) is saved in runs of this
 * size, each keeping the batch's `savedAt`.
 */
export const MAX_IMPORT_BATCH_MESSAGES = 500;

/** One save of an import: the plan's messages from `start`, in order. */
export interface PlannedBatch {
  /** Index in the plan's messages of the batch's first message. */
  start: number;
  messages: PlannedMessage[];
}

/**
 * The saves of the whole plan, from its first message: consecutive messages saved in one batch
 * at the source (same `savedAt`), never across the snapshot's boundary and never more than
 * `maxMessages`. Always cut from the first message, so every import of one line (a rerun, a
 * concurrent one) cuts it the same way and can key each save alike.
 */
export function importBatches(
  plan: ImportPlan,
  maxMessages: number = MAX_IMPORT_BATCH_MESSAGES,
): PlannedBatch[] {
  const batches: PlannedBatch[] = [];
  let current: PlannedBatch | undefined;
  for (let i = 0; i < plan.messages.length; i++) {
    const message = plan.messages[i]!;
    if (
      current === undefined ||
      current.messages.at(-1)!.savedAt !== message.savedAt ||
      i === plan.covered ||
      current.messages.length >= maxMessages
    ) {
      current = { start: i, messages: [] };
      batches.push(current);
    }
    current.messages.push(message);
  }
  return batches;
}

/** Messages compared between two turns of the event loop. */
const COMPARED_PER_TURN = 256;

/**
 * Index (from 0, within the compared run) of the first stored entry unlike the planned message at
 * `offset + i`, giving the event loop a turn every {@link COMPARED_PER_TURN} messages.
 */
async function firstMismatch(
  stored: readonly Entry[],
  planned: readonly PlannedMessage[],
  offset: number,
  count: number,
): Promise<number> {
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % COMPARED_PER_TURN === 0) await setImmediate();
    if (batchDigest([stored[i]!.message]) !== batchDigest([planned[offset + i]!.message])) return i;
  }
  return -1;
}

/** Whether two snapshots hold the same summary and pinned messages (canonical JSON). */
export function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return a.summary === b.summary && batchDigest(a.pinned ?? []) === batchDigest(b.pinned ?? []);
}
