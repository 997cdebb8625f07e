import { unlessCorrupt } from '../core/session-info';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListSessionsQuery, SessionInfo, SessionPage } from '../core/backend.interface';
import {
  compareNewestFirst,
  decodeListToken,
  encodeListToken,
  listLimit,
  matchesSearch,
  type ListPosition,
} from '../core/session-list';
import { isValidSessionId } from '../core/session-id';
import { isAlive, removeIfAbandoned } from './file-lock';

/** `stat` calls in flight at once while listing. */
const STAT_CONCURRENCY = 64;
/** Sessions read at once to fill a page. */
const READ_CONCURRENCY = 16;

/**
 * One page of the sessions in `dir`, newest first: sorts the session files on their modification
 * time (one `stat` each, no read), then reads sessions in that order, only until the page (plus
 * one, to know whether there is a next page) is full. Without `search` that is the page's
 * sessions; with it, as many as it takes to find them. Keyset tokens hold the last item's
 * `updatedAt` and id, so they stay valid while sessions are written: a session written since
 * moves ahead of the token and is not shown again.
 */
export async function listSessionFiles(
  dir: string,
  read: (id: string) => Promise<SessionInfo | null>,
  q: ListSessionsQuery,
): Promise<SessionPage> {
  const limit = listLimit(q);
  const after = q.after ? decodeListToken(q.after) : null;
  const ids = (await sessionFileNames(dir))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => isValidSessionId(id));
  const positions: ListPosition[] = [];
  for (let i = 0; i < ids.length; i += STAT_CONCURRENCY) {
    const batch = await Promise.all(
      ids.slice(i, i + STAT_CONCURRENCY).map(async (id) => {
        const s = await stat(join(dir, `${id}.json`)).catch(() => null);
        return s ? { id, updatedAt: s.mtime.toISOString() } : null;
      }),
    );
    for (const position of batch) {
      if (position && (!after || compareNewestFirst(position, after) > 0)) positions.push(position);
    }
  }
  positions.sort(compareNewestFirst);
  const items: SessionInfo[] = [];
  for (let i = 0; i < positions.length && items.length <= limit;) {
    const want = q.search ? READ_CONCURRENCY : Math.min(READ_CONCURRENCY, limit + 1 - items.length);
    const batch = await Promise.all(
      positions.slice(i, i + want).map((p) => unlessCorrupt(() => read(p.id))),
    );
    i += want;
    for (const info of batch) {
      if (info && matchesSearch(info, q.search) && items.length <= limit) items.push(info);
    }
  }
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page, next: items.length > limit && last ? encodeListToken(last) : null };
}

/** The names of the session files in `dir` (`*.json`); none when it does not exist. */
export async function sessionFileNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** A temp file's name: `.<target>.<pid>.<12 hex>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes what a killed process left in `dir`: temp files of writes it never finished (their pid
 * is gone) and locks whose holder is gone (see
 * `withFileLock`). Files of live processes are left alone.
 */
export async function removeLeftovers(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const temp = TEMP_NAME.exec(name);
      if (temp) {
        if (!isAlive(Number(temp[1]))) await unlink(path).catch(() => undefined);
      } else if (name.endsWith('.json.lock')) {
        await removeIfAbandoned(path);
      }
    }),
  );
}
