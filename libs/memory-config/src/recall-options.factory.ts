import { Logger } from '@nestjs/common';
import { innermostBackend, type MemoryBackend } from '@agent-memory/memory';
import type {
  Embedder,
  RecallBackend,
  RecallOperation,
  VectorStore,
} from '@agent-memory/memory/rag';
import type { RecallConfig } from './recall-config';

/** The embedder `MEMORY_RECALL_EMBEDDER` names. `/rag` is loaded only when recall is on. */
export async function recallEmbedderFromConfig(config: RecallConfig): Promise<Embedder> {
  const rag = await import('@agent-memory/memory/rag');
  switch (config.embedder) {
    case 'hashed':
      return new rag.HashedNgramEmbedder(
        config.embedderDimensions ? { dimensions: config.embedderDimensions } : {},
      );
    case 'offline':
      return new rag.UniversalSentenceEmbedder();
    case 'openai':
      return new rag.OpenAiCompatibleEmbedder({
        baseUrl: config.embedderUrl!,
        apiKey: config.embedderApiKey ?? '',
        model: config.embedderModel!,
        ...(config.embedderDimensions ? { dimensions: config.embedderDimensions } : {}),
      });
  }
}

/**
 * The vector store `MEMORY_RECALL_STORE` names. pgvector reuses the postgres backend's connection
 * pool when it points at the same database; otherwise it opens its own and closes it with the store.
 * @throws VectorExtensionMissingError (it names the install script), DimensionMismatchError.
 */
export async function recallStoreFromConfig(
  config: RecallConfig,
  dimensions: number,
  backend: MemoryBackend,
): Promise<VectorStore> {
  const rag = await import('@agent-memory/memory/rag');
  if (config.store === 'memory') return new rag.InMemoryVectorStore(dimensions);
  const options = { dimensions, ...(config.pgTable ? { table: config.pgTable } : {}) };
  const { isPostgresBackend } = await import('@agent-memory/memory/postgres');
  const store = innermostBackend(backend);
  const shared = isPostgresBackend(store) ? store.dataSource : null;
  if (shared && shared.options.type === 'postgres' && shared.options.url === config.databaseUrl) {
    return rag.PgVectorStore.open(shared, options);
  }
  const { DataSource } = await import('typeorm');
  const owned = new DataSource({ type: 'postgres', url: config.databaseUrl! });
  await owned.initialize();
  try {
    const store = await rag.PgVectorStore.open(owned, options);
    return withClose(store, () => owned.destroy());
  } catch (error) {
    await owned.destroy();
    throw error;
  }
}

/** `store` whose `close` also runs `after` (the store does not own its DataSource). */
function withClose(store: VectorStore, after: () => Promise<void>): VectorStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'close') {
        return async () => {
          try {
            await target.close();
          } finally {
            await after();
          }
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/** Told of every recall failure after it is logged (for metrics). */
export type RecallErrorListener = (error: unknown, operation: RecallOperation) => void;

/**
 * `backend` with semantic recall as `config` describes: saves are embedded by background jobs
 * (never on the request path), a start-up catch-up indexes what earlier runs left, indexing
 * failures are logged and retried. The backend is closed when the recall set-up fails.
 */
export async function withRecallFromConfig(
  backend: MemoryBackend,
  config: RecallConfig,
  onRecallError?: RecallErrorListener,
): Promise<RecallBackend> {
  try {
    const { withRecall } = await import('@agent-memory/memory/rag');
    const embedder = await recallEmbedderFromConfig(config);
    const store = await recallStoreFromConfig(config, embedder.dimensions, backend);
    const logger = new Logger('Recall');
    return withRecall(backend, {
      embedder,
      store,
      topK: config.topK,
      messageRange: config.messageRange,
      scope: config.scope,
      resourceMetaKey: config.resourceMetaKey,
      ...(config.minScore !== null ? { minScore: config.minScore } : {}),
      queryTimeoutMs: config.queryTimeoutMs,
      onError: (error, sessionId, operation) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (operation === 'query') {
          logger.warn(`recall for session "${sessionId}" went without recall: ${reason}`);
        } else {
          logger.warn(
            `indexing ${sessionId ? `session "${sessionId}"` : 'the backlog'} failed, will retry: ${reason}`,
          );
        }
        onRecallError?.(error, operation);
      },
    });
  } catch (error) {
    await backend.close().catch(() => undefined);
    throw error;
  }
}
