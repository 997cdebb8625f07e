import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListSessionsQuery, SessionInfo, SessionPage } from '../core/backend.interface';
import { unlessCorrupt } from '../core/session-info';
import {
  decodeListToken,
  encodeListToken,
  listLimit,
  matchesListQuery,
} from '../core/session-list';
import { isAlive, removeIfAbandoned } from './file-lock';
import type { SessionIndex } from './session-index';

/** Sessions read at once to fill a page. */
const READ_CONCURRENCY = 16;

/**
 * One page of the sessions in `dir`, newest first, in the order of the folder's session index
 * (the files' modification times, without a `stat` of each: see {@link SessionIndex}); then reads
 * sessions in that order, only until the page (plus one, to know whether there is a next page)
 * is full. Without `search` that is the page's sessions; with it, as many as it takes to find
 * them. Keyset tokens hold the last item's `updatedAt` and id, so they stay valid while sessions
 * are written: a session written since moves ahead of the token and is not shown again.
 */
export async function listSessionFiles(
  index: SessionIndex,
  read: (id: string) => Promise<SessionInfo | null>,
  q: ListSessionsQuery,
): Promise<SessionPage> {
  const limit = listLimit(q);
  const after = q.after ? decodeListToken(q.after) : null;
  await index.refresh();
  const items: SessionInfo[] = [];
  let from = after;
  // A search or resource filter may read every session: sort them once rather than pick the next few each time.
  const filtered = Boolean(q.search) || (q.resource !== undefined && q.resource !== null);
  const sorted = filtered ? index.newest(Infinity, after) : null;
  let taken = 0;
  while (items.length <= limit) {
    const want = filtered ? READ_CONCURRENCY : Math.min(READ_CONCURRENCY, limit + 1 - items.length);
    const positions = sorted ? sorted.slice(taken, (taken += want)) : index.newest(want, from);
    if (positions.length === 0) break;
    from = positions[positions.length - 1]!;
    const batch = await Promise.all(positions.map((p) => unlessCorrupt(() => read(p.id))));
    for (const [n, info] of batch.entries()) {
      const position = positions[n]!;
      // A session gone, or written since the index says: the index learns it.
      if (info?.updatedAt !== position.updatedAt)
        index.correct(position.id, info?.updatedAt ?? null);
      if (info && matchesListQuery(info, q) && items.length <= limit) items.push(info);
    }
  }
  const page = items.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page, next: items.length > limit && last ? encodeListToken(last) : null };
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
