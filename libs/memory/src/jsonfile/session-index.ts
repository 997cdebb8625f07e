import { constants } from 'node:fs';
import { open, readdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListPosition } from '../core/session-list';
import { isValidSessionId } from '../core/session-id';
import { writeFileAtomic } from './atomic-write';
import { writeAll } from './write-all';

/**
 * The folder's session index: `_index`, one line `<id>\t<mtime ms>` per write (or `<id>\t-` when
 * a session was removed), appended by every process that writes a session there, as it lets go
 * of the session's lock. The first list of the folder creates it (a folder never listed has none). It is a cache of the session files' modification times: a reader keeps
 * the latest time of each session in memory, reads only the lines added since its last look, and
 * so lists the newest sessions without a `stat` of every file. The files stay the truth:
 * - the first look in a process walks the folder (`readdir` + `stat` of each file), and so does
 *   a look after files were added or removed by something else than the store (a Phero file
 *   dropped in: the folder changed after the index's last line) or after `REWALK_MS`;
 * - a walk rewrites the index from what it found (atomically) once its lines outnumber the
 *   sessions enough, so it stays about one line per session;
 * - the sessions of a page are read as always, and one that is gone is skipped.
 * Lines are written without fsync: an index lost in a crash is rebuilt by the next walk.
 */
export const INDEX_FILE = '_index';

/** Longest time a process lists from the index alone before it walks the folder again. */
const REWALK_MS = 60_000;
/** `stat` calls in flight at once during a walk. */
const STAT_CONCURRENCY = 64;
/** The index is rewritten when it holds more than this many lines per session (and 1 MiB). */
const LINES_PER_SESSION = 4;
const MIN_COMPACT_BYTES = 1 << 20;

/** What this process last noted per session file (a write that changed nothing notes nothing). */
const lastNoted = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

/**
 * How long a folder found without an index is not looked at again by the writes of this process
 * (a list in this process that creates it ends that at once). A write not noted meanwhile is no
 * loss: it renamed a file in the folder, so the folder is newer than the index, and another
 * process's next list walks the folder.
 */
const ABSENT_INDEX_RECHECK_MS = 1_000;
/** Per folder, when this process last found it without an index. */
const absentSince = new Map<string, number>();

/** Appends that `id` was written (its file's mtime now) or, when its file is gone, removed. */
export async function noteSessionWritten(dir: string, id: string, path: string): Promise<void> {
  const absent = absentSince.get(dir);
  // A folder nobody lists has no index: the common case is settled without a failing open,
  // whose error costs more than the call itself.
  const skip = absent !== undefined && Date.now() - absent < ABSENT_INDEX_RECHECK_MS;
  // The stat and the open run at once (two threads of the pool): one wait instead of two.
  const [s, handle] = await Promise.all([
    stat(path).catch(() => null),
    // Only to an index a list created (a folder nobody lists gets none); the index is a cache: a
    // failed append is healed by the next walk.
    skip ? null : openIndex(dir),
  ]);
  // `mtime` (Node rounds `mtimeMs` to it), not `mtimeMs`: the time a read of the file reports.
  const value = s ? String(s.mtime.getTime()) : '-';
  if (lastNoted.get(path) === value) {
    await handle?.close();
    return;
  }
  if (lastNoted.size >= MAX_REMEMBERED) lastNoted.clear();
  lastNoted.set(path, value);
  if (!handle) return;
  try {
    await writeAll(handle, Buffer.from(`${id}\t${value}\n`));
  } catch {
    // A part of the line may be written, and other processes append after it, so it cannot be
    // cut back: remove the index instead; the next list walks the folder and writes a new one.
    await unlink(join(dir, INDEX_FILE)).catch(() => undefined);
  } finally {
    await handle.close();
  }
}

/** The folder's index opened for appending; null when there is none (remembered a while). */
async function openIndex(dir: string): Promise<FileHandle | null> {
  try {
    const handle = await open(join(dir, INDEX_FILE), constants.O_WRONLY | constants.O_APPEND);
    absentSince.delete(dir);
    return handle;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (absentSince.size >= MAX_REMEMBERED) absentSince.clear();
      absentSince.set(dir, Date.now());
    }
    return null;
  }
}

interface Entry {
  id: string;
  ms: number;
}

/** One folder's index as this process last read it. */
export class SessionIndex {
  private readonly times = new Map<string, number>();
  private readonly path: string;
  private inode = -1;
  private offset = 0;
  /** Leftover of the last read that did not end in a newline (a line being appended). */
  private partial = '';
  /** The folder's mtime when this process last walked it, and when. */
  private walkedDirMtime = -1;
  private walkedAt = 0;
  private refreshing: Promise<void> | null = null;

  /** @param opts.readOnly never write the index file: every look walks the folder. */
  constructor(
    private readonly dir: string,
    private readonly opts: { readOnly?: boolean } = {},
  ) {
    this.path = join(dir, INDEX_FILE);
  }

  /** Brings the index up to date with the folder (one look at a time). */
  refresh(): Promise<void> {
    this.refreshing ??= this.look().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * Up to `count` sessions newest first, after keyset position `after`, without sorting every
   * session: one pass keeping the best `count` (`Infinity`: all of them, sorted).
   */
  newest(count: number, after: ListPosition | null): ListPosition[] {
    // Compared as numbers; only the sessions returned get an ISO time.
    const afterMs = after ? Date.parse(after.updatedAt) : 0;
    const isAfter = (id: string, ms: number) =>
      !after || ms < afterMs || (ms === afterMs && id > after.id);
    const newer = (a: Entry, b: Entry) => a.ms > b.ms || (a.ms === b.ms && a.id < b.id);
    let best: Entry[] = [];
    if (count === Infinity) {
      for (const [id, ms] of this.times) if (isAfter(id, ms)) best.push({ id, ms });
      best = best.sort((a, b) => (newer(a, b) ? -1 : 1));
    } else {
      for (const [id, ms] of this.times) {
        if (!isAfter(id, ms)) continue;
        const entry = { id, ms };
        if (best.length === count && !newer(entry, best[count - 1]!)) continue;
        let at = best.length;
        while (at > 0 && newer(entry, best[at - 1]!)) at--;
        best.splice(at, 0, entry);
        if (best.length > count) best.pop();
      }
    }
    return best.map((entry) => ({ id: entry.id, updatedAt: new Date(entry.ms).toISOString() }));
  }

  /** Corrects one session's entry from what a read of its file found (null: it is gone). */
  correct(id: string, updatedAt: string | null): void {
    if (updatedAt === null) this.times.delete(id);
    else this.times.set(id, Date.parse(updatedAt));
  }

  private async look(): Promise<void> {
    const [index, folder] = await Promise.all([
      stat(this.path).catch(() => null),
      stat(this.dir).catch(() => null),
    ]);
    if (!folder) {
      this.times.clear();
      this.walkedDirMtime = -1;
      return;
    }
    const changedOutside =
      folder.mtimeMs !== this.walkedDirMtime && (!index || folder.mtimeMs > index.mtimeMs);
    if (
      this.walkedDirMtime < 0 ||
      changedOutside ||
      !index ||
      index.ino !== this.inode ||
      index.size < this.offset ||
      Date.now() - this.walkedAt > REWALK_MS
    ) {
      await this.walk(folder.mtimeMs);
      return;
    }
    if (index.size > this.offset) await this.readLines(index.size);
  }

  /** Rebuilds the entries from the files themselves, then reads what was appended meanwhile. */
  private async walk(dirMtime: number): Promise<void> {
    const index = await stat(this.path).catch(() => null);
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const ids = names
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter((id) => isValidSessionId(id));
    const found = new Map<string, number>();
    for (let i = 0; i < ids.length; i += STAT_CONCURRENCY) {
      await Promise.all(
        ids.slice(i, i + STAT_CONCURRENCY).map(async (id) => {
          const s = await stat(join(this.dir, `${id}.json`)).catch(() => null);
          if (s) found.set(id, s.mtime.getTime());
        }),
      );
    }
    this.times.clear();
    for (const [id, ms] of found) this.times.set(id, ms);
    this.walkedDirMtime = dirMtime;
    this.walkedAt = Date.now();
    this.partial = '';
    if (index && index.size <= Math.max(MIN_COMPACT_BYTES, found.size * LINES_PER_SESSION * 24)) {
      // Lines appended since the stat above are newer than the walk, or say the same.
      this.inode = index.ino;
      this.offset = index.size;
      const now = await stat(this.path).catch(() => null);
      if (now && now.ino === this.inode && now.size > this.offset) await this.readLines(now.size);
      return;
    }
    // A folder this process may not (or must not) write to is listed by walking it each time.
    if (this.opts.readOnly) this.inode = -1;
    else await this.rewrite(found).catch(() => (this.inode = -1));
  }

  /** Replaces the index with one line per session (atomically; an append racing it is healed by the next walk). */
  private async rewrite(found: Map<string, number>): Promise<void> {
    let text = '';
    for (const [id, ms] of found) text += `${id}\t${ms}\n`;
    await writeFileAtomic(this.path, text);
    // The writes of this process note to it from now on.
    absentSince.delete(this.dir);
    const [index, folder] = await Promise.all([stat(this.path), stat(this.dir)]);
    this.inode = index.ino;
    this.offset = text.length;
    // Our own rename changed the folder; that is no change from outside.
    this.walkedDirMtime = folder.mtimeMs;
    if (index.size > this.offset) await this.readLines(index.size);
  }

  /** Applies the lines between the last offset and `end`. */
  private async readLines(end: number): Promise<void> {
    const handle = await open(this.path, 'r').catch(() => null);
    if (!handle) return;
    let text: string;
    try {
      const buffer = Buffer.alloc(end - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      text = this.partial + buffer.toString('utf8', 0, bytesRead);
      this.offset += bytesRead;
    } finally {
      await handle.close();
    }
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const id = line.slice(0, tab);
      const value = line.slice(tab + 1);
      if (!isValidSessionId(id)) continue;
      if (value === '-') this.times.delete(id);
      else if (/^\d+$/.test(value)) this.times.set(id, Number(value));
    }
  }
}
