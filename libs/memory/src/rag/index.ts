/**
 * `@agent-memory/memory/rag`: semantic recall over session logs (`withRecall`), a standalone `Rag`
 * for documents, embedders and vector stores. Importing this loads neither TensorFlow (the offline
 * embedder loads it on its first `embed`) nor `pg`/`typeorm` (`PgVectorStore` works on the
 * `DataSource` you pass in).
 */
export * from './embedder.interface';
export * from './vector-store.interface';
export * from './rag.errors';
export { HashedNgramEmbedder, type HashedNgramEmbedderOptions } from './hashed-ngram.embedder';
export {
  OpenAiCompatibleEmbedder,
  type OpenAiCompatibleEmbedderOptions,
} from './openai-compatible.embedder';
export {
  UniversalSentenceEmbedder,
  type UniversalSentenceEmbedderOptions,
} from './universal-sentence.embedder';
export { InMemoryVectorStore } from './in-memory-vector.store';
export { PgVectorStore, type PgVectorStoreOptions } from './pgvector.store';
export {
  createVectorTableMigration,
  DEFAULT_VECTOR_TABLE,
  vectorTableNames,
  type VectorTableNames,
} from './pgvector-table';
export { cosineSimilarity } from './vector-math';
export * from './recall-options.interface';
export { resolveRecallOptions } from './recall-options.validation';
export { withRecall, hasRecall, type RecallBackend } from './recall.backend';
export { RecallIndexer } from './recall.indexer';
export {
  RECALL_HEADER,
  type RecallResult,
  type RecalledRange,
  type RecalledMessage,
  type RecallSearchHit,
  type RecallSearchScope,
} from './recall.engine';
export { Rag, type RagDocument, type RagHit, type RagOptions } from './rag';
export { chunkText } from './text-chunker';
/** Another name for {@link Rag}, the one `docs/recall.md` uses for documents outside sessions. */
export { Rag as RagMemory } from './rag';
