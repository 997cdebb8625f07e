import { readdir, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { syncDirectory } from './atomic-write';
import type { StoredSnapshot } from '../core/memory.interface';
import type { Message } from '../core/message';
import { timesFor, type SavedTimes } from '../core/saved-times';
import { HEAD_FORMAT, isHead, type KeyRecord, type SessionHead } from './session-head';
import { encodeLogLine } from './session-log';
import { KEY_WINDOW, logNameOf, type SessionState } from './session-state';

/** Messages per line when a whole log is rewritten (migration, prune). */
const REWRITE_LINE_MESSAGES = 512;

/** What the whole kept log of a session is, for the rare writes that rewrite it. */
export interface WholeSession {
  messages: readonly Message[];
  /** When each message's batch was saved, parallel to `messages`. Absent: none known. */
  savedAt?: SavedTimes;
  saved: number;
  snapshot: StoredSnapshot | null;
  meta: Readonly<Record<string, string>>;
  keyRecords: KeyRecord[];
}

/** A new log generation of a session, encoded: what `SessionFiles.writeGeneration` writes. */
export interface PlannedGeneration {
  /** The new log's file name. */
  name: string;
  head: SessionHead;
  /** The head as the session file's text. */
  headText: string;
  /** The log's lines, in order. */
  chunks: Buffer[];
  /** The log's size. */
  logBytes: number;
}

/**
 * Encodes `whole` as the next log generation of the session at `path` (loaded as `state`) and the
 * head naming it, with the tail at the line holding the first message after the snapshot.
 */
export function planGeneration(
  path: string,
  state: SessionState,
  whole: WholeSession,
): PlannedGeneration {
  const generation = (state.log?.head.generation ?? 0) + 1;
  const name = logNameOf(path, generation);
  const from = whole.saved - whole.messages.length + 1;
  const upTo = whole.snapshot?.upTo ?? 0;
  let tail = { offset: 0, at: from };
  const chunks: Buffer[] = [];
  let offset = 0;
  const times = timesFor(whole.savedAt, whole.messages.length);
  for (const [start, count] of rewriteLines(times)) {
    const at = from + start;
    const batch = whole.messages.slice(start, start + count);
    if (at <= upTo + 1 && upTo + 1 < at + batch.length) tail = { offset, at };
    const line = Buffer.from(encodeLogLine(at, batch, undefined, undefined, times[start]), 'utf8');
    chunks.push(line);
    offset += line.length;
  }
  if (upTo >= whole.saved) tail = { offset, at: whole.saved + 1 };
  else if (upTo + 1 < from) tail = { offset: 0, at: from };
  const head: SessionHead = {
    format: HEAD_FORMAT,
    log: name,
    generation,
    from,
    tail,
    saved: whole.saved,
    snapshot: whole.snapshot,
    meta: { ...whole.meta },
    keys: whole.keyRecords.slice(-KEY_WINDOW),
  };
  return { name, head, headText: JSON.stringify(head), chunks, logBytes: offset };
}

/**
 * How a rewrite splits a log into lines, as `[start, count]`: one line per run of messages saved
 * at one time (so each keeps its time), at most {@link REWRITE_LINE_MESSAGES} a line.
 */
function rewriteLines(times: readonly (string | undefined)[]): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  let start = 0;
  for (let i = 1; i <= times.length; i++) {
    if (i === times.length || times[i] !== times[start] || i - start === REWRITE_LINE_MESSAGES) {
      lines.push([start, i - start]);
      start = i;
    }
  }
  return lines;
}

/** Whether the session file at `path` is a head naming the log `name`. */
export async function headNames(path: string, name: string): Promise<boolean> {
  try {
    const raw = JSON.parse(await readFile(path, 'utf8')) as unknown;
    return isHead(raw) && (raw as { log?: unknown }).log === name;
  } catch {
    return false;
  }
}

/**
 * Removes every log of the session file at `path` (after it became a plain array again; a log
 * a crash leaves behind is named by no head, and the next move to the log form overwrites it).
 * The caller holds the lock.
 */
export async function removeSessionLogs(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path).replace(/\.json$/i, '')}.log-`;
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && /^\d+\.jsonl$/.test(name.slice(prefix.length)))
      .map((name) => unlink(join(dir, name)).catch(ignoreMissingFile)),
  );
  await syncDirectory(dir);
}

function ignoreMissingFile(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
