import {
  jsonFileBackend,
  OpenAiCompatibleClient,
  simpleBackend,
  type MemoryBackend,
  type MemoryModuleOptions,
} from '@agent-memory/memory';
import type { StoreObserver } from '@agent-memory/memory/observability';
import type { MemoryConfig } from './memory-config';
import { withRecallFromConfig, type RecallErrorListener } from './recall-options.factory';

/**
 * The backend `MEMORY_BACKEND` names. Optional backends are loaded only when chosen, so a
 * jsonfile process never loads `pg` or `nats`.
 * @throws what the backend's factory throws (postgres, nats: the server is unreachable).
 */
export async function memoryBackendFromConfig(
  config: MemoryConfig,
  observer?: StoreObserver,
): Promise<MemoryBackend> {
  switch (config.backend) {
    case 'simple':
      return simpleBackend({ capacity: config.simpleCapacity });
    case 'jsonfile':
      return jsonFileBackend({
        dir: config.memoryDir,
        minFreeBytes: config.jsonFileMinFreeMb * 1024 * 1024,
        observer,
      });
    case 'nats': {
      const { natsBackend } = await import('@agent-memory/memory/nats');
      return natsBackend({
        servers: config.natsUrl!,
        bucket: config.natsBucket,
        timeoutMs: config.natsTimeoutMs,
        writeBudgetMs: config.natsWriteBudgetMs,
        observer,
      });
    }
    case 'postgres': {
      const { postgresBackend } = await import('@agent-memory/memory/postgres');
      return postgresBackend({
        url: config.databaseUrl!,
        ...(config.pgTable ? { table: config.pgTable } : {}),
        ensureSchema: config.pgEnsureSchema,
      });
    }
  }
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
