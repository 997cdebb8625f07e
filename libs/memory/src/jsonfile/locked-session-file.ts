import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { throwIfAborted } from '../core/abort';
import type { CallOptions } from '../core/memory.interface';
import { withFileLock } from './file-lock';
import { asFileStoreErrors } from './write-all';
import { noteSessionWritten } from './session-index';
import type { SessionFiles } from './session-files';
import type { SessionState } from './session-state';

/**
 * One session file's way in for a store: reads without a lock, and writes holding this process's
 * queue for the file and the cross-process lock, with file errors turned into the store's errors.
 */
export class LockedSessionFile {
  /**
   * @param sessionId the session name used in error messages.
   * @param path the session file's absolute path.
   * @param files the parse cache and write queue of the file's folder.
   */
  constructor(
    readonly sessionId: string,
    readonly path: string,
    readonly files: SessionFiles,
  ) {}

  /**
   * The session as stored now; a file error is a `StorageFullError` or `BackendUnavailableError`.
   * A plain array found with a cut-off append (see `plain-array-tail.ts`) reads as it was before
   * it; the read then waits for the lock, so that an append still being written is read whole
   * and one whose writer died is cut off (when the folder cannot be written, it stays).
   */
  load(): Promise<SessionState> {
    return asFileStoreErrors('read', this.sessionId, async () => {
      const state = await this.files.load(this.sessionId, this.path);
      if (!state.plainTail?.torn) return state;
      return this.write('repair', undefined, (locked) =>
        this.files.repairPlain(this.sessionId, this.path, locked),
      ).catch(() => state);
    });
  }

  /**
   * Runs `change` on the session as stored now, holding this process's queue for the file and
   * the cross-process lock. The folder is created only when the lock cannot be made for its lack.
   */
  write<T>(
    operation: string,
    opts: CallOptions | undefined,
    change: (state: SessionState) => Promise<T>,
  ): Promise<T> {
    return this.files.serialize(this.path, () => this.locked(operation, opts, change));
  }

  /**
   * Runs `change` on the session as stored now, holding the cross-process lock (the caller holds
   * this process's queue for the file). The folder is created only when the lock cannot be made
   * for its lack (at most once per call). A file error is a `StorageFullError` or a `BackendUnavailableError` naming
   * `operation`.
   */
  async locked<T>(
    operation: string,
    opts: CallOptions | undefined,
    change: (state: SessionState) => Promise<T>,
  ): Promise<T> {
    throwIfAborted(opts);
    const attempt = () =>
      withFileLock(
        this.sessionId,
        this.path,
        async () => {
          const state = await this.files.load(this.sessionId, this.path);
          throwIfAborted(opts);
          return change(state);
        },
        // The index note needs no lock: written while the lock is removed.
        { afterwards: () => this.noteWritten() },
      );
    return asFileStoreErrors(operation, this.sessionId, async () => {
      let result: T;
      try {
        result = await attempt();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        // The folder was missing when the lock was tried. Another session's first save may have
        // made it since, so whether it exists now says nothing: make it (a no-op when there)
        // and try once more; a second ENOENT is then about something else and is thrown.
        await mkdir(dirname(this.path), { recursive: true });
        result = await attempt();
      }
      return result;
    });
  }

  /** Tells the folder's session index (as the lock is removed: see `SessionIndex`). */
  noteWritten(): Promise<void> {
    return noteSessionWritten(dirname(this.path), this.sessionId, this.path);
  }
}
