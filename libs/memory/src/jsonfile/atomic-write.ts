import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
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
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let renamed = false;
  let written: Stats | null;
  try {
    const handle = await open(temp, 'wx');
    try {
      await writeAll(handle, Buffer.from(data, 'utf8'), 0);
      if (opts.mtime) await handle.utimes(opts.mtime, opts.mtime);
      // The status is final once the data and times are written: taken while the fsync runs
      // (on another thread of the pool), not after it, so it adds no wait.
      [, written] = await Promise.all([
        opts.durable !== false ? handle.sync() : undefined,
        opts.stat !== false ? handle.stat() : null,
      ]);
    } finally {
      await handle.close();
    }
    opts.beforeRename?.();
    await rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
  if (opts.durable !== false) await syncDirectory(dir);
  return written;
}

/** Makes a folder's entries (a rename, an unlink) durable. A no-op where folders cannot be opened. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!['EINVAL', 'EPERM', 'ENOTSUP'].includes((error as NodeJS.ErrnoException).code ?? ''))
      throw error;
  } finally {
    await handle.close();
  }
}
