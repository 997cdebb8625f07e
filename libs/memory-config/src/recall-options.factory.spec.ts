/**
 * The pgvector store recall opens next to a PostgreSQL backend on the same database shares that
 * backend's connection pool, found under the backend's decorators; on another database it opens
 * a pool of its own.
 */
import type { MemoryBackend, WrappingBackend } from '@agent-memory/memory';
import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { parseMemoryConfig } from './memory-config';
import { recallStoreFromConfig } from './recall-options.factory';

const schemas = new TestSchemas('recall_pool');
const opened: PostgresBackend[] = [];
afterAll(async () => {
  for (const backend of opened) await backend.close().catch(() => undefined);
  await schemas.cleanup();
});

/** Recall on pgvector at `databaseUrl`, its vectors in a fresh table. */
function pgvectorRecall(databaseUrl: string) {
  return parseMemoryConfig({
    MEMORY_BACKEND: 'postgres',
    DATABASE_URL: databaseUrl,
    MEMORY_RECALL_EMBEDDER: 'hashed',
    MEMORY_RECALL_STORE: 'pgvector',
    MEMORY_RECALL_PG_TABLE: schemas.nextTable('vectors'),
  }).recall!;
}

/** A PostgreSQL backend on a fresh table, closed after the file if its test did not. */
async function closedAfterAll(): Promise<PostgresBackend> {
  const backend = await postgresBackend({ url: schemas.url, table: schemas.nextTable() });
  opened.push(backend);
  return backend;
}

/** A decorator that shows the port only, as a decorator of yours may. */
function decorated(backend: MemoryBackend): WrappingBackend {
  return {
    kind: backend.kind,
    open: (sessionId) => backend.open(sessionId),
    list: (query) => backend.list(query),
    erase: (query) => backend.erase(query),
    inspect: (sessionId) => backend.inspect(sessionId),
    delete: (sessionId, opts) => backend.delete(sessionId, opts),
    check: () => backend.check(),
    close: () => backend.close(),
    unwrap: () => backend,
  };
}

describe('recallStoreFromConfig on pgvector', () => {
  it('uses the PostgreSQL backend’s pool, under its decorators, when the database is the same', async () => {
    const backend = await closedAfterAll();
    const store = await recallStoreFromConfig(pgvectorRecall(schemas.url), 3, decorated(backend));
    await store.upsert([
      { id: 'a', vector: [1, 0, 0], session: null, resource: null, cursor: null },
    ]);
    // The backend's pool is the store's: closing the backend leaves the store without one.
    await backend.close();
    await expect(store.query([1, 0, 0], 1)).rejects.toThrow();
  });

  it('opens a pool of its own for another database URL, closed with the store', async () => {
    const backend = await closedAfterAll();
    const elsewhere = `${schemas.url}${schemas.url.includes('?') ? '&' : '?'}application_name=recall`;
    const store = await recallStoreFromConfig(pgvectorRecall(elsewhere), 3, decorated(backend));
    await store.upsert([
      { id: 'a', vector: [1, 0, 0], session: null, resource: null, cursor: null },
    ]);
    await backend.close();
    expect((await store.query([1, 0, 0], 1)).map((hit) => hit.id)).toEqual(['a']);
    await store.close();
  });
});
