import {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  type ListSessionsQuery,
  type SessionInfo,
  type SessionPage,
} from './backend.interface';
import { isValidSessionId } from './session-id';

/** The keyset position a `next` token stands for: the last item of the previous page. */
export interface ListPosition {
  updatedAt: string;
  id: string;
}

/** The page size a query asks for, clamped to 1…{@link MAX_LIST_LIMIT}. */
export function listLimit(q: ListSessionsQuery): number {
  const limit = q.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isFinite(limit) || limit < 1) {
    throw new RangeError(`limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, got ${limit}`);
  }
  return Math.min(Math.floor(limit), MAX_LIST_LIMIT);
}

export function encodeListToken(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.id])).toString('base64url');
}

/** @throws RangeError when the token was not made by {@link encodeListToken}. */
export function decodeListToken(token: string): ListPosition {
  try {
    const [updatedAt, id] = JSON.parse(
      Buffer.from(token, 'base64url').toString('utf8'),
    ) as unknown[];
    if (typeof updatedAt === 'string' && typeof id === 'string') return { updatedAt, id };
  } catch {
    // fall through to the error below
  }
  throw new RangeError(`"after" is not a page token returned by list: ${JSON.stringify(token)}`);
}

/** Whether a session matches `search`: a case-insensitive substring of its id or `title` meta. */
export function matchesSearch(
  info: Pick<SessionInfo, 'id' | 'meta'>,
  search: string | undefined,
): boolean {
  if (!search) return true;
  const needle = search.toLowerCase();
  return (
    info.id.toLowerCase().includes(needle) || (info.meta.title ?? '').toLowerCase().includes(needle)
  );
}

/** Newest first; ties broken by id so the order (and the keyset) is total. */
export function compareNewestFirst(a: ListPosition, b: ListPosition): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * One page of an in-memory list of sessions, for stores that hold every session's info at hand.
 * `updatedAt` values must be ISO strings of one format, so that they compare as text.
 */
export function paginateSessions(all: Iterable<SessionInfo>, q: ListSessionsQuery): SessionPage {
  const limit = listLimit(q);
  const after = q.after ? decodeListToken(q.after) : null;
  const matching = [...all]
    .filter((info) => matchesSearch(info, q.search))
    .filter((info) => !after || compareNewestFirst(info, after) > 0)
    .sort(compareNewestFirst);
  const items = matching.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: matching.length > limit && last ? encodeListToken(last) : null };
}

/** Sessions read at once by {@link listByReadingEach}. */
export const LIST_READ_CONCURRENCY = 16;

/**
 * One page for a store that has no index to list from (JSON files, NATS KV): reads the info of
 * every id that is a valid session id, {@link LIST_READ_CONCURRENCY} at a time, then pages in
 * memory. `read` returns null for what is not (or no longer) a session. O(sessions) reads a page.
 */
export async function listByReadingEach(
  ids: readonly string[],
  read: (id: string) => Promise<SessionInfo | null>,
  q: ListSessionsQuery,
): Promise<SessionPage> {
  listLimit(q); // a bad limit is refused before any read
  const valid = ids.filter((id) => isValidSessionId(id));
  const infos: SessionInfo[] = [];
  for (let i = 0; i < valid.length; i += LIST_READ_CONCURRENCY) {
    const batch = await Promise.all(valid.slice(i, i + LIST_READ_CONCURRENCY).map(read));
    for (const info of batch) if (info) infos.push(info);
  }
  return paginateSessions(infos, q);
}
