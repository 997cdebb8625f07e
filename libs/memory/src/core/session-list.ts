import { DEFAULT_LIST_LIMIT } from './defaults';
import {
  MAX_LIST_LIMIT,
  RESOURCE_META_KEY,
  type ListSessionsQuery,
  type SessionInfo,
  type SessionPage,
} from './backend.interface';
import { InvalidQueryError } from './errors';
import { isValidSessionId } from './session-id';
import { unstorableTextReason } from './storable-text';

/** The keyset position a `next` token stands for: the last item of the previous page. */
export interface ListPosition {
  updatedAt: string;
  id: string;
}

/**
 * The page size a query asks for, clamped to 1…{@link MAX_LIST_LIMIT}, after checking the whole
 * query (every backend calls this before any read).
 * @throws InvalidQueryError naming `limit`, `after`, `search` or `resource`.
 */
export function listLimit(q: ListSessionsQuery): number {
  const limit = q.limit ?? DEFAULT_LIST_LIMIT;
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 1) {
    throw new InvalidQueryError(
      'limit',
      `must be a whole number from 1 to ${MAX_LIST_LIMIT}, got ${String(limit)}`,
    );
  }
  if (q.after !== undefined && q.after !== null) decodeListToken(q.after);
  if (q.search !== undefined && q.search !== null) {
    if (typeof q.search !== 'string') throw new InvalidQueryError('search', 'must be a string');
    const problem = unstorableTextReason(q.search);
    if (problem) throw new InvalidQueryError('search', problem);
  }
  if (q.resource !== undefined && q.resource !== null) assertResource(q.resource);
  return Math.min(Math.floor(limit), MAX_LIST_LIMIT);
}

export function encodeListToken(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.id])).toString('base64url');
}

/**
 * Reads a `next` token, checking all of it before any backend uses it: the base64url JSON pair of
 * an ISO 8601 time exactly as `Date#toISOString` writes it and a valid session id.
 * @throws InvalidQueryError (field `after`) when the token was not made by {@link encodeListToken}.
 */
export function decodeListToken(token: string): ListPosition {
  if (typeof token === 'string' && token.length <= MAX_LIST_TOKEN_LENGTH) {
    try {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
      if (Array.isArray(decoded) && decoded.length === 2) {
        const [updatedAt, id] = decoded as unknown[];
        if (isIsoTime(updatedAt) && typeof id === 'string' && isValidSessionId(id)) {
          return { updatedAt, id };
        }
      }
    } catch {
      // fall through to the error below
    }
  }
  throw new InvalidQueryError(
    'after',
    `not a page token returned by list: ${JSON.stringify(String(token).slice(0, 64))}`,
  );
}

/** Longer than any token {@link encodeListToken} makes (a time, a 128-character id, JSON, base64). */
const MAX_LIST_TOKEN_LENGTH = 512;

function isIsoTime(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) {
    return false;
  }
  const time = new Date(value);
  return !Number.isNaN(time.getTime()) && time.toISOString() === value;
}

/**
 * Checks a resource name (of `list` or `erase`) before any I/O: a non-empty string a store can keep.
 * @throws InvalidQueryError (field `resource`) naming what is wrong.
 */
export function assertResource(resource: unknown): asserts resource is string {
  if (typeof resource !== 'string') throw new InvalidQueryError('resource', 'must be a string');
  if (resource === '') throw new InvalidQueryError('resource', 'must not be empty');
  const problem = unstorableTextReason(resource);
  if (problem) throw new InvalidQueryError('resource', problem);
}

/** Whether a session belongs to `resource` (its `resource` meta equals it); any session without a filter. */
export function matchesResource(
  info: Pick<SessionInfo, 'meta'>,
  resource: string | undefined,
): boolean {
  return resource === undefined || resource === null || info.meta[RESOURCE_META_KEY] === resource;
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

/** Whether a session is one `list(q)` shows: it matches both `search` and `resource`. */
export function matchesListQuery(
  info: Pick<SessionInfo, 'id' | 'meta'>,
  q: Pick<ListSessionsQuery, 'search' | 'resource'>,
): boolean {
  return matchesSearch(info, q.search) && matchesResource(info, q.resource);
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
    .filter((info) => matchesListQuery(info, q))
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
