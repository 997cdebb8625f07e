import {
  MAX_LIST_LIMIT,
  type EraseResult,
  type ListSessionsQuery,
  type SessionPage,
} from './backend.interface';

/** What erasing one session removed; null when it was gone or no longer of the resource. */
export type ErasedSession = { messages: number } | null;

/** Sessions erased at once by {@link eraseListedSessions}. */
const ERASE_CONCURRENCY = 16;

/**
 * Listing passes {@link eraseListedSessions} makes at most: a session that takes the resource
 * while a pass runs is found by the next one, and a writer that keeps adding such sessions cannot
 * keep the erase going for ever.
 */
const MAX_ERASE_PASSES = 3;

/** An erase that found nothing. */
export function nothingErased(): EraseResult {
  return { sessions: 0, messages: 0, vectors: 0, sessionIds: [] };
}

/**
 * `erase` for a store with no query by meta (in-process, JSON files, NATS KV): lists the
 * resource's sessions, then hands each id to `eraseOne`, which removes the session in one atomic
 * step of its store after checking, inside that step, that it still belongs to the resource.
 * Lists again until a pass finds nothing (at most {@link MAX_ERASE_PASSES} passes).
 */
export async function eraseListedSessions(
  list: (q: ListSessionsQuery) => Promise<SessionPage>,
  resource: string,
  eraseOne: (sessionId: string) => Promise<ErasedSession>,
): Promise<EraseResult> {
  const result = nothingErased();
  for (let pass = 0; pass < MAX_ERASE_PASSES; pass++) {
    const ids = await listAllIds(list, resource);
    if (ids.length === 0) break;
    for (let i = 0; i < ids.length; i += ERASE_CONCURRENCY) {
      const batch = ids.slice(i, i + ERASE_CONCURRENCY);
      const erased = await Promise.all(batch.map(eraseOne));
      erased.forEach((one, n) => {
        if (!one) return;
        result.sessions++;
        result.messages += one.messages;
        result.sessionIds.push(batch[n]!);
      });
    }
  }
  return result;
}

async function listAllIds(
  list: (q: ListSessionsQuery) => Promise<SessionPage>,
  resource: string,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    const page = await list({ resource, limit: MAX_LIST_LIMIT, after });
    ids.push(...page.items.map((info) => info.id));
    after = page.next ?? undefined;
  } while (after);
  return ids;
}
