import { RESOURCE_META_KEY, type MemoryBackend, type SessionInfo } from '../core/backend.interface';
import { eraseListedSessions } from '../core/resource-erase';
import { deleteIfUnchanged } from '../core/session-delete';
import { assertOptionsObject, assertWholeNumberOption } from '../core/factory-options';
import { assertSessionId } from '../core/session-id';
import { assertResource, paginateSessions } from '../core/session-list';
import { legacySummaryPolicy } from '../core/legacy-summarization';
import { SimpleMemory, type SimpleMemoryOptions } from './simple.store';
import type { CheckpointStorage } from '../core/checkpoint-storage.interface';
import { InMemoryCheckpointStorage } from './in-memory-checkpoint.storage';
import { removingThreads } from '../core/thread-cleanup';

/** Options of `simpleBackend`. */
export interface SimpleBackendOptions {
  /** Messages kept per session (FIFO eviction past it). */
  capacity: number;
  /** Drop the messages a snapshot covers. Default false. */
  pruneCompacted?: boolean;
  /** @deprecated see {@link SimpleMemoryOptions.summarization}. */
  summarization?: SimpleMemoryOptions['summarization'];
  now?: () => Date;
}

/** The in-process backend: the port plus where its LangGraph checkpoints are kept. */
export interface SimpleBackend extends MemoryBackend {
  readonly kind: 'simple';
  /** Messages kept per session. */
  readonly capacity: number;
  /** The LangGraph checkpoints of its threads (`@agent-memory/memory/langgraph`), in this process. */
  readonly checkpointStorage: CheckpointStorage;
}

/** In-process sessions, one {@link SimpleMemory} each; gone when the process ends. */
export function simpleBackend(options: SimpleBackendOptions): SimpleBackend {
  assertOptionsObject('simpleBackend', options);
  if (options.capacity === undefined) {
    throw new TypeError('simpleBackend needs "capacity": how many messages each session keeps');
  }
  assertWholeNumberOption('simpleBackend', 'capacity', options.capacity, 1);
  const summaryPolicy = legacySummaryPolicy(options.summarization);
  const sessions = new Map<string, SimpleMemory>();

  const existing = (): SessionInfo[] =>
    [...sessions.values()]
      .map((store) => store.info())
      .filter((info): info is SessionInfo => info !== null);

  const checkpointStorage = new InMemoryCheckpointStorage();
  return removingThreads<SimpleBackend>({
    kind: 'simple',
    capacity: options.capacity,
    checkpointStorage,
    async open(sessionId) {
      assertSessionId(sessionId);
      let store = sessions.get(sessionId);
      if (!store) {
        store = new SimpleMemory(options.capacity, {
          sessionId,
          pruneCompacted: options.pruneCompacted,
          summaryPolicy,
          now: options.now,
        });
        sessions.set(sessionId, store);
      }
      return store;
    },
    async list(q) {
      return paginateSessions(existing(), q);
    },
    async erase(q) {
      assertResource(q?.resource);
      const { resource } = q;
      return eraseListedSessions(
        async (page) => paginateSessions(existing(), page),
        resource,
        async (id) =>
          sessions.get(id)?.eraseIf((meta) => meta[RESOURCE_META_KEY] === resource) ?? null,
      );
    },
    async inspect(sessionId) {
      assertSessionId(sessionId);
      return sessions.get(sessionId)?.info() ?? null;
    },
    async delete(sessionId, opts) {
      assertSessionId(sessionId);
      if (opts?.ifUnchanged) {
        return deleteIfUnchanged(
          sessionId,
          opts.ifUnchanged,
          (check) => sessions.get(sessionId)?.eraseIf(check) ?? null,
        );
      }
      await sessions.get(sessionId)?.clear();
    },
    async check() {},
    async close() {},
  });
}
