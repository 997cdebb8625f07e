import {
  BUILT_IN_DRIVERS,
  OpenAiCompatibleClient,
  type MemoryBackend,
  type MemoryDriver,
  type MemoryModuleOptions,
} from '@agent-memory/memory';
import type { StoreObserver } from '@agent-memory/memory/observability';
import { memoryDriverOf, type MemoryConfig } from './memory-config';
import { withRecallFromConfig, type RecallErrorListener } from './recall-options.factory';

/**
 * The backend `MEMORY_BACKEND` names, built by its driver from `config.store`. A store's
 * optional packages are loaded only when it is chosen, so a jsonfile process never loads `pg`
 * or `nats`.
 * @param drivers the stores to choose from (default `BUILT_IN_DRIVERS`).
 * @throws what the store's driver throws (postgres, nats: the server is unreachable).
 */
export async function memoryBackendFromConfig(
  config: MemoryConfig,
  observer?: StoreObserver,
  drivers: readonly MemoryDriver[] = BUILT_IN_DRIVERS,
): Promise<MemoryBackend> {
  return memoryDriverOf(config, drivers).create(config.store, { observer });
}

/**
 * The backend of {@link memoryBackendFromConfig}, with semantic recall when `MEMORY_RECALL_EMBEDDER`
 * is set (`withRecall`: saves are embedded by background jobs in this process).
 * @throws what opening the backend, the embedder or the vector store throws.
 */
export async function memoryBackendWithRecallFromConfig(
  config: MemoryConfig,
  observer?: StoreObserver,
  onRecallError?: RecallErrorListener,
): Promise<MemoryBackend> {
  const backend = await memoryBackendFromConfig(config, observer);
  return config.recall ? withRecallFromConfig(backend, config.recall, onRecallError) : backend;
}

/**
 * `MemoryModule.forRoot` options from the settings: the backend (with recall when configured), the
 * compaction threshold and window, the LLM (or the offline summariser) and where checks run.
 * @param opts.mode overrides `COMPACTION_MODE` (the worker always compacts inline).
 * @param opts.observer told by the stores about CAS retries and session sizes (metrics).
 * @param opts.onRecallError told of each recall failure (indexing or a query), after it is logged.
 * @param opts.recall false leaves recall off whatever the settings say: the compaction worker
 *   neither saves messages nor answers `retrieve`, so indexing stays with the processes that save.
 */
export function memoryModuleOptionsFromConfig(
  config: MemoryConfig,
  opts: {
    mode?: 'inline' | 'nats';
    observer?: StoreObserver;
    recall?: boolean;
    onRecallError?: RecallErrorListener;
  } = {},
): MemoryModuleOptions {
  const mode = opts.mode ?? config.compactionMode;
  const withRecall = opts.recall ?? true;
  return {
    backend: withRecall
      ? memoryBackendWithRecallFromConfig(config, opts.observer, opts.onRecallError)
      : memoryBackendFromConfig(config, opts.observer),
    compaction: {
      thresholdTokens: config.compactAtTokens,
      keepRecent: config.compactKeepRecent,
      shutdownGraceMs: config.compactionShutdownGraceMs,
      ...(config.llm
        ? {
            llm: new OpenAiCompatibleClient({
              baseUrl: config.llm.baseUrl,
              apiKey: config.llm.apiKey ?? '',
              model: config.llm.model,
            }),
          }
        : {}),
      mode,
      ...(mode === 'nats'
        ? {
            nats: {
              servers: config.natsUrl!,
              subject: config.compactionSubject,
              queue: config.compactionQueue,
            },
          }
        : {}),
    },
  };
}
