import { sessionInfo } from '../core/session-info';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SessionInfo } from '../core/backend.interface';
import { CorruptSessionError } from '../core/errors';
import {
  assertSnapshotInRange,
  lastSavedOfLog,
  parseSessionText,
  type SessionState,
} from './session-state';

/** The session id a file stands for: its name without `.json`. */
export function sessionIdOfPath(path: string): string {
  return basename(path).replace(/\.json$/i, '');
}

/**
 * What a session list shows about the session file at `path`: in plain form the file decoded, in
 * log form its head and the log's last line (so it costs the head, not the history).
 * @returns null when the file does not exist.
 * @throws CorruptSessionError when the file (or its log's last line) does not decode.
 */
export async function inspectSessionFile(id: string, path: string): Promise<SessionInfo | null> {
  for (let attempt = 0; ; attempt++) {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let text: string;
    let mtime: Date;
    try {
      const stat = await handle.stat();
      mtime = stat.mtime;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    const state = parseSessionText(id, text, null);
    if (state.log) {
      try {
        state.saved = await lastSavedOfLog(id, path, state.log.head);
      } catch (error) {
        // The head was replaced (and its log removed) between the two reads: read both again.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 5) continue;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new CorruptSessionError(id, `its log ${state.log.head.log} is missing`);
        }
        throw error;
      }
    }
    assertSnapshotInRange(id, state);
    return sessionInfoOfState(id, state, mtime);
  }
}

/**
 * What a session list shows about a loaded session (its `updatedAt` is the session file's
 * modification time, `mtime` or the one `state` was read with); null when there is no session.
 */
export function sessionInfoOfState(
  id: string,
  state: Pick<SessionState, 'form' | 'file' | 'saved' | 'from' | 'snapshot' | 'meta'>,
  mtime: Date | undefined = state.file?.mtime,
): SessionInfo | null {
  if (state.form === 'none' || mtime === undefined) return null;
  return sessionInfo(id, {
    saved: state.saved,
    stored: Math.max(0, state.saved - state.from + 1),
    updatedAt: mtime,
    snapshotUpTo: state.snapshot?.upTo ?? null,
    meta: state.meta,
  });
}
