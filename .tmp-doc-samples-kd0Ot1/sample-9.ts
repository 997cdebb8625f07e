import { withRecall } from '@agent-memory/memory/rag';
declare const session: import('@agent-memory/memory').SessionStore;
declare const dataSource: import('typeorm').DataSource;
import { MemoryModule, jsonFileBackend } from '@agent-memory/memory';
import { PgVectorStore, UniversalSentenceEmbedder } from '@agent-memory/memory/rag';
import { DataSource } from 'typeorm';

const embedder = new UniversalSentenceEmbedder(); // offline, 512 dimensions, loaded on first use
MemoryModule.forRootAsync({
  inject: [DataSource], // the app's own TypeORM DataSource, for the pgvector table
  useFactory: async (dataSource: DataSource) => ({
    backend: () => jsonFileBackend({ dir: './data/sessions' }),
    recall: {
      embedder,
      store: await PgVectorStore.open(dataSource, { dimensions: embedder.dimensions }),
      topK: 4, //          messages found per query
      messageRange: 1, //  neighbours quoted on each side
      scope: 'session', // or 'resource': every session with the same `resource` meta (a user, a tenant)
      minScore: 0.3, //    optional cosine floor
    },
  }),
});
// or, without Nest: const backend = withRecall(jsonFileBackend({ dir }), { embedder, store });

export {};
