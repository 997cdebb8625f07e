import {
  RESOURCE_META_KEY,
  type EraseQuery,
  type EraseResult,
  type MemoryBackend,
  type DeleteSessionOptions,
} from '../core/backend.interface';
import type { CallOptions, SessionStore } from '../core/memory.interface';
import type { Message } from '../core/message';
import type { WrappingBackend } from '../core/wrapping-backend';
import {
  RecallEngine,
  type RecallResult,
  type RecallSearchHit,
  type RecallSearchScope,
} from './recall.engine';
import { RecallIndexer } from './recall.indexer';
import type { RecallOptions } from './recall-options.interface';
import { resolveRecallOptions } from './recall-options.validation';

/** A backend with semantic recall (what {@link withRecall} returns); `unwrap()` is the backend without it. */
export interface RecallBackend extends WrappingBackend {
  /** What recall would add to `retrieve(query)` for the session (for the admin API). */
  recall(sessionId: string, query: string, opts?: CallOptions): Promise<RecallResult>;
  /**
   * The indexed messages nearest to `query` in one session, the sessions of one resource, or
   * every session (neither given), best first (for search tools such as the MCP server's).
   * @throws EmbeddingFailedError when the query's embedding fails or passes `queryTimeoutMs`.
   */
  search(query: string, scope: RecallSearchScope, opts?: CallOptions): Promise<RecallSearchHit[]>;
  /** The background indexer: `whenIdle()` resolves once every save so far is embedded. */
  readonly recallIndexer: RecallIndexer;
}

/** Whether `backend` was wrapped by {@link withRecall}. */
export function hasRecall(backend: MemoryBackend): backend is RecallBackend {
  return typeof (backend as Partial<RecallBackend>).recall === 'function';
}

/**
 * Adds semantic recall to any backend, without changing its store. Sessions it opens:
 * - `save` stores as before, then queues an indexing job (the save never waits for the model and
 *   never fails because of it; failures are retried);
 * - `retrieve(query)` returns the usual context, preceded by one system message quoting the
 *   recalled messages (when anything is recalled; a blank query recalls nothing);
 * - `clear` also deletes the session's vectors; so does the backend's `delete`, and `erase`
 *   deletes those of every session it erased (and, when `resourceMetaKey` is `resource`, every
 *   vector recorded for that resource), counting them in its `vectors`.
 * Everything else passes through. On creation a catch-up indexes what earlier runs left
 * unindexed (`catchUpOnStart`). `close` stops the indexer, then closes the backend and the
 * vector store.
 * @throws TypeError / RangeError naming a bad option; DimensionMismatchError when the embedder's
 *   and the store's dimensions differ.
 */
export function withRecall(backend: MemoryBackend, options: RecallOptions): RecallBackend {
  const resolved = resolveRecallOptions(options);
  const indexer = new RecallIndexer(backend, resolved);
  const engine = new RecallEngine(backend, resolved);

  const wrapSession = (sessionId: string, session: SessionStore): SessionStore =>
    new Proxy(session, {
      get(target, property, receiver) {
        switch (property) {
          case 'retrieve':
            return (query?: string, opts?: CallOptions): Promise<Message[]> =>
              query?.trim()
                ? engine.retrieve(sessionId, target, query, opts)
                : target.retrieve(query, opts);
          case 'save':
            return async (...args: Parameters<SessionStore['save']>) => {
              const result = await target.save(...args);
              indexer.schedule(sessionId);
              return result;
            };
          case 'clear':
            return async (opts?: CallOptions): Promise<void> => {
              await target.clear(opts);
              await indexer.forget(sessionId);
            };
          default: {
            const value: unknown = Reflect.get(target, property, receiver);
            return typeof value === 'function'
              ? (value as (...a: unknown[]) => unknown).bind(target)
              : value;
          }
        }
      },
    });

  const wrapped = new Proxy(backend, {
    get(target, property, receiver) {
      switch (property) {
        case 'open':
          return async (sessionId: string): Promise<SessionStore> =>
            wrapSession(sessionId, await target.open(sessionId));
        case 'delete':
          return async (sessionId: string, opts?: DeleteSessionOptions): Promise<void> => {
            // A conditional delete that finds the session changed throws: its vectors stay.
            await target.delete(sessionId, opts);
            await indexer.forget(sessionId);
          };
        case 'erase':
          return async (q: EraseQuery): Promise<EraseResult> => {
            const erased = await target.erase(q);
            let vectors = 0;
            for (const sessionId of erased.sessionIds) vectors += await indexer.forget(sessionId);
            // Vectors of the resource's sessions erased earlier (say, before recall was wrapped).
            if (resolved.resourceMetaKey === RESOURCE_META_KEY) {
              vectors += await resolved.store.delete({ resource: q.resource });
            }
            return { ...erased, vectors: erased.vectors + vectors };
          };
        case 'close':
          return async (): Promise<void> => {
            await indexer.close();
            try {
              await target.close();
            } finally {
              await resolved.store.close();
            }
          };
        case 'recall':
          return async (sessionId: string, query: string, opts?: CallOptions) =>
            engine.recall(sessionId, await target.open(sessionId), query, opts);
        case 'search':
          return (query: string, scope: RecallSearchScope, opts?: CallOptions) =>
            engine.search(query, scope, opts);
        case 'recallIndexer':
          return indexer;
        case 'unwrap':
          return () => target;
        default: {
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function'
            ? (value as (...a: unknown[]) => unknown).bind(target)
            : value;
        }
      }
    },
  }) as RecallBackend;

  if (resolved.catchUpOnStart) void indexer.catchUp();
  return wrapped;
}
