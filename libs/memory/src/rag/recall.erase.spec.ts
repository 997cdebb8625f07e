/**
 * Erasing a resource through `withRecall` also removes, and counts, the recall vectors of its
 * sessions, so recall can never quote an erased person's words again; other resources keep
 * theirs. Against a real local embeddings server, on in-memory vectors and on pgvector.
 */
import {
  assistantMessage,
  simpleBackend,
  userMessage,
  type MemoryBackend,
} from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import {
  startFakeEmbeddings,
  type FakeEmbeddings,
} from '@agent-memory/test-support/fake-embeddings.server';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { OpenAiCompatibleEmbedder } from './openai-compatible.embedder';
import { PgVectorStore } from './pgvector.store';
import { withRecall, type RecallBackend } from './recall.backend';
import type { VectorStore } from './vector-store.interface';

const DIMENSIONS = 32;
const schemas = new TestSchemas('recallerase');
const dataSource = useTestDataSource(schemas);

const setups: {
  name: string;
  backend(): Promise<MemoryBackend>;
  store(): Promise<VectorStore>;
}[] = [
  {
    name: 'simple backend + in-memory vectors',
    backend: async () => simpleBackend({ capacity: 100 }),
    store: async () => new InMemoryVectorStore(DIMENSIONS),
  },
  {
    name: 'postgres backend + pgvector',
    backend: () => postgresBackend({ dataSource, table: schemas.nextTable() }),
    store: () =>
      PgVectorStore.open(dataSource, { dimensions: DIMENSIONS, table: schemas.nextTable('vec') }),
  },
];

describe.each(setups)('erase with recall: $name', (setup) => {
  let server: FakeEmbeddings;
  let store: VectorStore;
  let backend: RecallBackend;

  beforeEach(async () => {
    server = await startFakeEmbeddings(DIMENSIONS);
    store = await setup.store();
    backend = withRecall(await setup.backend(), {
      embedder: new OpenAiCompatibleEmbedder({
        baseUrl: server.baseUrl,
        model: 'm',
        dimensions: DIMENSIONS,
        retryBaseMs: 1,
      }),
      store,
      scope: 'resource',
      retryDelayMs: 1,
      catchUpOnStart: false,
    });
  });
  afterEach(async () => {
    await backend.close();
    await server.close();
  });

  async function chat(id: string, resource: string, text: string): Promise<void> {
    const session = await backend.open(id);
    await session.setMeta('resource', resource);
    await session.save([userMessage(text), assistantMessage(`noted: ${text}`)]);
  }

  const vectorsOf = async (resource: string) =>
    (await store.query(new Array(DIMENSIONS).fill(1), 100, { resource })).length;

  it('deletes and counts the vectors of the erased sessions; other resources keep theirs', async () => {
    await chat('ana-1', 'ana', 'my locker code is 4711');
    await chat('ana-2', 'ana', 'my sister is called Marta');
    await chat('ben-1', 'ben', 'my locker code is 1234');
    await backend.recallIndexer.whenIdle();
    const anaVectors = await vectorsOf('ana');
    expect(anaVectors).toBeGreaterThanOrEqual(4);
    const benVectors = await vectorsOf('ben');

    const result = await backend.erase({ resource: 'ana' });

    expect(result).toMatchObject({ sessions: 2, messages: 4, vectors: anaVectors });
    expect(await vectorsOf('ana')).toBe(0);
    expect(await vectorsOf('ben')).toBe(benVectors);
    const everything = await store.query(new Array(DIMENSIONS).fill(1), 100);
    expect(everything.map((hit) => hit.session).sort()).toEqual(
      new Array(benVectors).fill('ben-1'),
    );
    expect(await backend.erase({ resource: 'ana' })).toMatchObject({
      sessions: 0,
      messages: 0,
      vectors: 0,
    });
  });

  it('an erase while a save is being embedded leaves no vector behind', async () => {
    await chat('cy-1', 'cy', 'first words');
    await backend.recallIndexer.whenIdle();
    const held = server.holdNext();
    const session = await backend.open('cy-1');
    await session.save([userMessage('words embedded while the erase runs')]);
    const erasing = backend.erase({ resource: 'cy' });
    held.release();
    const result = await erasing;
    await backend.recallIndexer.whenIdle();
    expect(result.sessions).toBe(1);
    expect(await vectorsOf('cy')).toBe(0);
    expect(await store.lastCursor('cy-1')).toBeNull();
  });
});
