import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { throwIfAborted } from '../core/abort';
import type { SessionInfo } from '../core/backend.interface';
import { deepFreeze } from '../core/deep-freeze';
import { DocumentStore, type DocumentChange } from '../core/document-store';
import type { SummarizationOptions } from '../core/legacy-summarization';
import type { CallOptions } from '../core/memory.interface';
import { EMPTY_DOCUMENT, encodeDocument, type SessionDocument } from '../core/session-document';
import { syncDirectory, writeFileAtomic } from './atomic-write';
import { withFileLock } from './file-lock';
import {
  parseSessionFile,
  readSessionFile,
  readSessionText,
  sessionFileInfo,
  sessionIdOfPath,
} from './session-file';

export interface JsonFileMemoryOptions {
  /** Drop the messages a snapshot covers when it is saved (rewriting the file without them). Default false. */
  pruneCompacted?: boolean;
  /** @deprecated Use compaction instead; see {@link SummarizationOptions}. */
  summarization?: SummarizationOptions;
  /** The session name used in error messages. Default: the file name without `.json`. */
  sessionId?: string;
  /** Clock for `updatedAt` (stamped as the file's modification time) and snapshot times. */
  now?: () => Date;
}

/**
 * A session kept in one JSON file: the file is the session, so pointing at the same file after a
 * restart resumes it. The file is a plain JSON array of messages until the first snapshot or
 * metadata, then an object holding messages, snapshot, meta and the count ever saved; older
 * array files and files written by Phero (Go field names, `null` lists) load as well.
 *
 * Safe across processes: every write takes a lock on the file (`<file>.lock`, via
 * `proper-lockfile`), re-reads it, applies the change and replaces the file atomically (temp file,
 * fsync, rename, fsync of the folder), so a second process on the same file loses nothing. Reads
 * take no lock, as the rename is atomic. A file that does not decode raises `CorruptSessionError`
 * and is never overwritten; only {@link clear} removes it.
 *
 * Messages handed out are frozen (they are shared with the instance's cache of the file).
 */
export class JsonFileMemory extends DocumentStore {
  /** The file's absolute path. */
  readonly path: string;
  /** Writes of this instance run one at a time, so they do not contend for the file lock. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The last text read or written and what it decodes to: an unchanged file is not parsed again. */
  private cache: { raw: string; doc: SessionDocument } | null = null;

  private constructor(path: string, opts: JsonFileMemoryOptions) {
    const absolute = resolve(path);
    super(opts.sessionId ?? sessionIdOfPath(absolute), {
      pruneCompacted: opts.pruneCompacted ?? false,
      summarization: opts.summarization,
      now: opts.now ?? (() => new Date()),
    });
    this.path = absolute;
  }

  /**
   * A memory over the file at `path` (which need not exist yet; it and its folder are created by
   * the first write). Opening reads nothing, so a corrupt file can still be cleared.
   * @throws TypeError when `path` is empty.
   * @throws RangeError when the `summarization` options are out of range.
   */
  static async open(path: string, opts: JsonFileMemoryOptions = {}): Promise<JsonFileMemory> {
    if (typeof path !== 'string' || path === '')
      throw new TypeError('JsonFileMemory needs a file path');
    return new JsonFileMemory(path, opts);
  }

  /**
   * What a session list shows about the file at `path`, read without opening it as a memory:
   * `id` is the file name without `.json`, `updatedAt` the file's modification time.
   * @returns null when the file does not exist.
   * @throws CorruptSessionError when the file does not decode.
   */
  static async inspect(path: string): Promise<SessionInfo | null> {
    const file = await readSessionFile(path);
    if (!file) return null;
    const id = sessionIdOfPath(path);
    return sessionFileInfo(id, parseSessionFile(id, file.raw), file.mtime);
  }

  /** Removes the session: deletes the file (also a corrupt one), so it is as if new. */
  async clear(opts?: CallOptions): Promise<void> {
    throwIfAborted(opts);
    await this.serialize(async () => {
      if (await fileExists(this.path)) {
        await withFileLock(this.sessionId, this.path, async () => {
          await unlink(this.path).catch(ignoreMissing);
          await syncDirectory(dirname(this.path));
        });
      }
      this.cache = null;
    });
  }

  /** The file as it is now, decoded; an absent file is an empty session. */
  protected async load(): Promise<SessionDocument> {
    const raw = await readSessionText(this.path);
    return raw === null ? EMPTY_DOCUMENT : this.decode(raw);
  }

  private decode(raw: string): SessionDocument {
    if (this.cache?.raw === raw) return this.cache.doc;
    const doc = deepFreeze(parseSessionFile(this.sessionId, raw));
    this.cache = { raw, doc };
    return doc;
  }

  /**
   * Under the file lock: re-reads the file, applies `change` and writes the result atomically.
   * `change` returning null writes nothing. Errors (a corrupt file included) leave the file as it was.
   * @returns the document written, or null when nothing was.
   */
  protected update(change: DocumentChange, opts?: CallOptions): Promise<SessionDocument | null> {
    return this.serialize(async () => {
      throwIfAborted(opts);
      await mkdir(dirname(this.path), { recursive: true });
      return withFileLock(this.sessionId, this.path, async (assertHeld) => {
        const next = change(await this.load());
        if (next === null) return null;
        throwIfAborted(opts);
        const raw = JSON.stringify(encodeDocument(next));
        await writeFileAtomic(this.path, raw, { mtime: this.now(), beforeRename: assertHeld });
        const doc = deepFreeze(next);
        this.cache = { raw, doc };
        return doc;
      });
    });
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
