import { DimensionMismatchError } from './rag.errors';
import type { RecallOptions, ResolvedRecallOptions } from './recall-options.interface';

/**
 * Fills in the defaults and checks every option.
 * @throws TypeError / RangeError naming the option; DimensionMismatchError when the embedder's
 *   and the store's dimensions differ.
 */
export function resolveRecallOptions(options: RecallOptions): ResolvedRecallOptions {
  const { embedder, store } = options ?? {};
  if (!embedder || typeof embedder.embed !== 'function') {
    throw new TypeError('recall.embedder must be an Embedder (with embed(texts) and dimensions)');
  }
  if (!store || typeof store.query !== 'function' || typeof store.upsert !== 'function') {
    throw new TypeError('recall.store must be a VectorStore (with upsert, query and delete)');
  }
  if (embedder.dimensions !== store.dimensions) {
    throw new DimensionMismatchError(
      `the recall store (embedder "${embedder.model}")`,
      store.dimensions,
      embedder.dimensions,
    );
  }
  const resolved: ResolvedRecallOptions = {
    embedder,
    store,
    topK: options.topK ?? 4,
    messageRange: options.messageRange ?? 1,
    scope: options.scope ?? 'session',
    minScore: options.minScore ?? null,
    resourceMetaKey: options.resourceMetaKey ?? 'resource',
    includeToolMessages: options.includeToolMessages ?? false,
    catchUpOnStart: options.catchUpOnStart ?? true,
    retryDelayMs: options.retryDelayMs ?? 1000,
    queryTimeoutMs: options.queryTimeoutMs ?? 2000,
    onError: options.onError ?? (() => undefined),
    now: options.now ?? (() => new Date()),
  };
  if (!Number.isInteger(resolved.topK) || resolved.topK < 1 || resolved.topK > 100) {
    throw new RangeError(`recall.topK must be a whole number from 1 to 100, got ${resolved.topK}`);
  }
  if (
    !Number.isInteger(resolved.messageRange) ||
    resolved.messageRange < 0 ||
    resolved.messageRange > 20
  ) {
    throw new RangeError(
      `recall.messageRange must be a whole number from 0 to 20, got ${resolved.messageRange}`,
    );
  }
  if (resolved.scope !== 'session' && resolved.scope !== 'resource') {
    throw new RangeError(
      `recall.scope must be 'session' or 'resource', got ${String(resolved.scope)}`,
    );
  }
  if (resolved.minScore !== null && !(resolved.minScore >= -1 && resolved.minScore <= 1)) {
    throw new RangeError(`recall.minScore must be a number from -1 to 1, got ${resolved.minScore}`);
  }
  if (typeof resolved.resourceMetaKey !== 'string' || resolved.resourceMetaKey === '') {
    throw new TypeError('recall.resourceMetaKey must be a non-empty string');
  }
  if (!Number.isFinite(resolved.retryDelayMs) || resolved.retryDelayMs < 0) {
    throw new RangeError(`recall.retryDelayMs must be a number ≥ 0, got ${resolved.retryDelayMs}`);
  }
  if (!Number.isInteger(resolved.queryTimeoutMs) || resolved.queryTimeoutMs < 1) {
    throw new RangeError(
      `recall.queryTimeoutMs must be a whole number of ms ≥ 1, got ${resolved.queryTimeoutMs}`,
    );
  }
  return resolved;
}
