import { randomHex12 } from './random-hex';
import type { Stats } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeAll } from './write-all';

export interface AtomicWriteOptions {
  /** Stamped as the file's modification time (the session's `updatedAt`). Default: when it is written. */
  mtime?: Date;
  /** Called after the data is durable and just before the rename; throwing there cancels the write. */
  beforeRename?: () => void;
  /**
   * False: no fsync of the file or the folder. Readers still see the old file or the new one,
   * never a mix, but a power cut may leave either, or an empty file. For copies that can be
   * rebuilt. Default true.
   */
  durable?: boolean;
  /** False: the caller does not need the written file's status; one system call fewer. Default true. */
  stat?: boolean;
}

/**
 * Replaces the file at `path` with `data` so that a reader (or a crash) sees either the old file
 * or the new one, never a mix: writes a temp file in the same folder, fsyncs it, renames it over
 * `path`, then fsyncs the folder so the rename itself survives a power cut. The folder must exist.
 * On failure the temp file is removed and `path` is unchanged.
 * @returns the written file's status, taken before the rename (which keeps its inode and times),
 *   so a caller can cache what it wrote without reading it back; null with `stat: false`.
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  opts: AtomicWriteOptions & { stat: false },
): Promise<null>;
export async function writeFileAtomic(
  path: string,
  data: string,
  opts?: AtomicWriteOptions,
): Promise<Stats>;
export async function writeFileAtomic(
  path: string,
  data: string,
  opts: AtomicWriteOptions = {},
): Promise<Stats | null> {
  const dir = dirname(path);
  // Starts with a dot and ends in .tmp: never mistaken for a session file.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomHex12()}.tmp`);
  const durable = opts.durable !== false;
  // The folder is opened while the file is written, so its fsync after the rename waits for no
  // open; the handle is closed on every path below.
  const folder = durable ? openDirectory(dir) : Promise.resolve(null);
  folder.catch(() => undefined);
  let renamed = false;
  let written: Stats | null = null;
  try {
    const handle = await open(temp, 'wx');
    let closing: Promise<void> | null = null;
    try {
      await writeAll(handle, Buffer.from(data, 'utf8'), 0);
      if (opts.mtime) await handle.utimes(opts.mtime, opts.mtime);
      // The status is final once the data and times are written: taken while the fsync runs
      // (on another thread of the pool), not after it, so it adds no wait.
      [, written] = await Promise.all([
        durable ? handle.sync() : undefined,
        opts.stat !== false ? handle.stat() : null,
      ]);
      opts.beforeRename?.();
      // The data is durable: closing the temp file changes nothing the rename publishes, so both
      // run at once. Both are waited for, so `renamed` is exact when either fails.
      closing = handle.close();
      const [closed, moved] = await Promise.allSettled([closing, rename(temp, path)]);
      if (moved.status === 'rejected') throw moved.reason;
      renamed = true;
      if (closed.status === 'rejected') throw closed.reason;
    } finally {
      if (!closing) await handle.close();
    }
  } catch (error) {
    await folder.then((h) => h?.close()).catch(() => undefined);
    throw error;
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
  const handle = await folder;
  if (handle) await syncOpenDirectory(handle);
  return written;
}

/** Makes a folder's entries (a rename, an unlink) durable. A no-op where folders cannot be opened. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await openDirectory(dir);
  if (handle) await syncOpenDirectory(handle);
}

/** The folder opened for an fsync; null where folders cannot be opened. */
async function openDirectory(dir: string): Promise<FileHandle | null> {
  try {
    return await open(dir, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? ''))
      return null;
    throw error;
  }
}

/**
 * Fsyncs an opened folder, then closes it without waiting for the close (nothing depends on it).
 * A no-op where folders cannot be fsynced.
 */
async function syncOpenDirectory(handle: FileHandle): Promise<void> {
  try {
    await handle.sync();
  } catch (error) {
    if (!['EINVAL', 'EPERM', 'ENOTSUP'].includes((error as NodeJS.ErrnoException).code ?? '')) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }
  handle.close().catch(() => undefined);
}
