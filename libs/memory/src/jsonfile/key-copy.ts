import { readFile, unlink } from 'node:fs/promises';
import { IDEMPOTENCY_KEY_WINDOW, type IdempotencyRecord } from '../core/idempotency';
import { decodeKeySidecar, encodeKeySidecar, mergeSidecarKeys } from '../core/idempotency-marks';
import { writeFileAtomic } from './atomic-write';
import type { SessionState } from './session-state';

/**
 * The key copy of a session file: `<id>.json.keys` beside it (not a `.json` file, so never taken
 * for a session). In the plain form a session's idempotency keys are marks on its messages,
 * written with them (see `IDEMPOTENCY_KEY_MARK`); the copy holds the same records, so that they
 * outlive a Phero process rewriting the array without the marks. It is a journal: lines, each a
 * JSON array of records (a whole rewrite writes one line with all of them, a save appended in
 * place one line with its own record); a later line's record of a key replaces an earlier one.
 */
export function keyCopyPathOf(path: string): string {
  return `${path}.keys`;
}

/**
 * The records of the key copy of the session file at `path`, oldest first; none when there is no
 * copy. A line that does not decode is skipped: a whole rewrite is not fsynced (see
 * {@link writeKeyCopy}) and an appended line may be cut off by a crash, and the marks in the
 * session file hold every key this library wrote.
 */
export async function readKeyCopy(path: string): Promise<IdempotencyRecord[]> {
  let text: string;
  try {
    text = await readFile(keyCopyPathOf(path), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records = new Map<string, IdempotencyRecord>();
  for (const line of text.split('\n')) {
    let decoded: IdempotencyRecord[];
    try {
      decoded = decodeKeySidecar(line);
    } catch {
      continue;
    }
    for (const record of decoded) {
      records.delete(record.key);
      records.set(record.key, record);
    }
  }
  return [...records.values()];
}

/** The journal line of the key copy that records one save appended in place. */
export function keyCopyLine(record: IdempotencyRecord): Buffer {
  return Buffer.from(`${encodeKeySidecar([record])}\n`, 'utf8');
}

/**
 * Replaces the key copy of the session file at `path` (temp file, rename: readers see the old
 * copy or the new one). Not fsynced: the keys are durable as marks in the session file, written
 * with its messages; the copy only has to outlive a Phero process rewriting that file, so a save
 * does not pay a second fsync for it.
 */
export async function writeKeyCopy(
  path: string,
  keys: ReadonlyMap<string, IdempotencyRecord>,
): Promise<void> {
  await writeFileAtomic(keyCopyPathOf(path), `${encodeKeySidecar([...keys.values()])}\n`, {
    durable: false,
    stat: false,
  });
}

/** Removes the key copy of the session file at `path`, if any. */
export async function removeKeyCopy(path: string): Promise<void> {
  await unlink(keyCopyPathOf(path)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * Adds to a plain session just parsed the copy's keys whose messages are stored at their cursors
 * (see `mergeSidecarKeys`): what remains of the keys after another program rewrote the array.
 * Only an array without any mark is read with its copy (see `mayHaveLostKeyMarks`): one this
 * library wrote carries all its keys.
 */
export async function withKeyCopy(path: string, state: SessionState): Promise<void> {
  const unmarked =
    state.form === 'plain' &&
    state.messages.length > 0 &&
    state.keys.size === 0 &&
    state.times.every((time) => time === undefined);
  if (!unmarked) return;
  const copy = await readKeyCopy(path);
  if (copy.length === 0) return;
  const own = [...state.keys.values()];
  const merged = mergeSidecarKeys(own, copy, state.messages, state.from, IDEMPOTENCY_KEY_WINDOW);
  if (merged === own) return;
  state.keys = new Map(merged.map((record) => [record.key, record]));
  // No message carries these keys' marks: the next save rewrites the array whole, marking them
  // again, instead of appending a batch whose mark would hide that the copy is still needed.
  state.plainTail = null;
}
