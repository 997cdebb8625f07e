import { open, readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SessionInfo } from '../core/backend.interface';
import { EMPTY_DOCUMENT, parseDocumentText, type SessionDocument } from '../core/session-document';

/** A session file as read from disk. */
export interface SessionFile {
  /** The file's text. */
  raw: string;
  /** The file's modification time: the session's `updatedAt`. */
  mtime: Date;
}

/**
 * Reads a session file and its modification time from one open handle (so they belong together).
 * @returns null when the file does not exist.
 */
export async function readSessionFile(path: string): Promise<SessionFile | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const stat = await handle.stat();
    return { raw: await handle.readFile('utf8'), mtime: stat.mtime };
  } finally {
    await handle.close();
  }
}

/** A session file's text, or null when it does not exist: the cheapest read, for reads that need no time. */
export async function readSessionText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Decodes a session file's text: our object form, a plain array of messages (ours, older
 * versions', Phero's). An empty file, or Phero's `null` for a cleared session, is an empty session.
 * @throws CorruptSessionError naming `session` when the text is not JSON or not a session.
 */
export function parseSessionFile(session: string, raw: string): SessionDocument {
  return parseDocumentText(session, raw, 'the file') ?? EMPTY_DOCUMENT;
}

/** The session id a file stands for: its name without `.json`. */
export function sessionIdOfPath(path: string): string {
  return basename(path).replace(/\.json$/i, '');
}

/** What a session list shows about a decoded file. */
export function sessionFileInfo(id: string, doc: SessionDocument, mtime: Date): SessionInfo {
  return {
    id,
    messages: doc.saved,
    stored: doc.messages.length,
    updatedAt: mtime.toISOString(),
    hasSnapshot: doc.snapshot !== null,
    snapshotUpTo: doc.snapshot?.upTo ?? null,
    meta: { ...doc.meta },
  };
}
