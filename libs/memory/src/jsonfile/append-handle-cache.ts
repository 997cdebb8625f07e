import { closeAppendHandles, NO_HANDLES, type AppendHandles } from './plain-append';
import type { SessionState } from './session-state';

/** Sessions whose files a backend keeps open between appends (two files each at most). */
export const KEPT_APPEND_HANDLES = 64;

/**
 * The file handles this process's last append in place left open, per session file, so that the
 * next append of the session neither opens nor closes a file (the opens and closes were most of
 * what a keyed save did beyond the bare write). Kept for at most `max` sessions, the least
 * recently used closed first.
 *
 * A kept handle is used only while the session is exactly as that append left it: the state
 * loaded under the lock is the very state the append cached (any other write, by this process or
 * another, replaces that state: the session file's identity changes) and the file's inode is the
 * one the handle opened. Every write that replaces the session file or its key copy also writes
 * the session file, so the key copy's handle is still the copy's then.
 */
export class AppendHandleCache {
  private readonly kept = new Map<
    string,
    { state: SessionState; ino: number; handles: AppendHandles }
  >();

  /** @param max sessions whose handles are kept open. */
  constructor(private readonly max: number) {}

  /**
   * The handles kept for `path` when `state` is the one the append that kept them wrote; they are
   * the caller's then. Handles kept for another state are closed.
   */
  take(path: string, state: SessionState): AppendHandles {
    const entry = this.kept.get(path);
    if (!entry) return NO_HANDLES;
    this.kept.delete(path);
    if (entry.state === state && state.file?.identity.ino === entry.ino) return entry.handles;
    closeAppendHandles(entry.handles);
    return NO_HANDLES;
  }

  /** Keeps `handles`, open on the session file at `path` as `state` holds it. */
  keep(path: string, state: SessionState, handles: AppendHandles): void {
    this.drop(path);
    this.kept.set(path, { state, ino: state.file!.identity.ino, handles });
    if (this.kept.size > this.max) this.drop(this.kept.keys().next().value!);
  }

  /** Closes the handles kept for `path`, if any. */
  drop(path: string): void {
    const entry = this.kept.get(path);
    if (!entry) return;
    this.kept.delete(path);
    closeAppendHandles(entry.handles);
  }

  /** Closes every kept handle. */
  close(): void {
    for (const path of [...this.kept.keys()]) this.drop(path);
  }
}
