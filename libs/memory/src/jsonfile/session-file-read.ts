import { open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { FileIdentity, SessionState } from './session-state';

/**
 * The session file's text and identity from one open handle, or `unchanged` when its identity is
 * still `known`, or null when it does not exist.
 */
export async function readSessionFile(
  path: string,
  known: FileIdentity | null,
): Promise<SessionState['file'] | 'unchanged' | null> {
  if (known) {
    // One stat answers the common case (nothing changed) without opening the file.
    const s = await stat(path).catch(ignoreMissingStat);
    if (s === null) return null;
    if (sameIdentity(known, identityOf(s))) return 'unchanged';
  }
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const s = await handle.stat();
    return { identity: identityOf(s), text: await handle.readFile('utf8'), mtime: s.mtime };
  } finally {
    await handle.close();
  }
}

/** A file's identity; the time is rounded to milliseconds, the precision a stamped `Date` has. */
export function identityOf(s: Stats): FileIdentity {
  return { ino: s.ino, size: s.size, mtimeMs: Math.round(s.mtimeMs) };
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

function ignoreMissingStat(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}
