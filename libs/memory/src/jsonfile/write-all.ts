import type { FileHandle } from 'node:fs/promises';
import { BackendUnavailableError, MemoryError, StorageFullError } from '../core/errors';
import { rethrowTranslated } from '../core/rethrow-translated';

/** The store's name in the errors it raises. */
export const JSON_FILE_STORE = 'JSON file';

/** Error codes of a full disk, a full quota, or a file past the process's size limit. */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * Writes all of `data` to `handle` at `position` (or at the file's position, or its end under
 * `O_APPEND`, when null), looping over short writes: a nearly full disk or a file size limit
 * writes part of a buffer and reports how much, and only the next write fails.
 * @throws the system error of the write that failed (some bytes may have been written before it).
 */
export async function writeAll(
  handle: FileHandle,
  data: Buffer,
  position: number | null = null,
): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(
      data,
      done,
      data.length - done,
      position === null ? null : position + done,
    );
    if (bytesWritten === 0) throw Object.assign(new Error('write wrote nothing'), { code: 'EIO' });
    done += bytesWritten;
  }
}

/** {@link writeAll} of several buffers one after another, from `position` on. */
export async function writeAllOf(
  handle: FileHandle,
  chunks: readonly Buffer[],
  position: number,
): Promise<void> {
  let at = position;
  for (const chunk of chunks) {
    await writeAll(handle, chunk, at);
    at += chunk.length;
  }
}

/** Whether `error` is a full disk, quota or file size limit. */
export function isStorageFull(error: unknown): boolean {
  return FULL_CODES.has((error as NodeJS.ErrnoException | null)?.code ?? '');
}

/**
 * What a file error means to a caller: the library's own errors pass as they are; a full disk is
 * {@link StorageFullError}; any other system error is {@link BackendUnavailableError} naming the
 * operation (the folder is unreadable, read-only, gone...), never an unexplained error.
 */
export function fileStoreError(operation: string, session: string | null, error: unknown): unknown {
  if (error instanceof MemoryError) return error;
  if (isStorageFull(error)) return new StorageFullError(operation, session, error);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) {
    return new BackendUnavailableError(JSON_FILE_STORE, operation, session, error);
  }
  return error;
}

/** Runs `fn`, rethrowing its file errors as {@link fileStoreError} makes them. */
export async function asFileStoreErrors<T>(
  operation: string,
  session: string | null,
  fn: () => Promise<T>,
): Promise<T> {
  return rethrowTranslated(fn, (error) => fileStoreError(operation, session, error));
}
