import { describeVectorStoreConformance } from '@agent-memory/test-conformance';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { PgVectorStore } from './pgvector.store';
import { DimensionMismatchError, VectorExtensionMissingError } from './rag.errors';

const schemas = new TestSchemas('pgvec');
const dataSource = useTestDataSource(schemas);

describeVectorStoreConformance('pgvector', {
  create: (dimensions) =>
    PgVectorStore.open(dataSource, { dimensions, table: schemas.nextTable('vectors') }),
});

describe('PgVectorStore', () => {
  it('creates the table with an HNSW cosine index', async () => {
    const table = schemas.nextTable('vectors');
    await PgVectorStore.open(dataSource, { dimensions: 4, table });
    const [schema, name] = table.split('.');
    const indexes = await schemas.query<{ indexdef: string }>(
      'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
      [schema, name],
    );
    expect(indexes.map((i) => i.indexdef).join('\n')).toMatch(
      /USING hnsw \(embedding vector_cosine_ops\)/,
    );
  });

  it('opening a table of other dimensions is a clear error, and nothing is changed', async () => {
    const table = schemas.nextTable('vectors');
    const store = await PgVectorStore.open(dataSource, { dimensions: 3, table });
    await store.upsert([{ id: 'a', vector: [1, 2, 3], session: 's', resource: null, cursor: 1 }]);
    const error = await PgVectorStore.open(dataSource, { dimensions: 512, table }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DimensionMismatchError);
    expect(String((error as Error).message)).toMatch(/holds 3-dimensional vectors, got 512/);
    expect(await store.query([1, 2, 3], 5)).toHaveLength(1);
  });

  it('a filtered query still finds k records when the filter matches few (iterative HNSW scan)', async () => {
    const store = await PgVectorStore.open(dataSource, {
      dimensions: 8,
      table: schemas.nextTable('vectors'),
    });
    const records = Array.from({ length: 2000 }, (_, i) => ({
      id: `r${i}`,
      vector: Array.from({ length: 8 }, (_, d) => Math.sin(i * (d + 1))),
      session: i % 100 === 0 ? 'rare' : 'common',
      resource: null,
      cursor: i,
    }));
    await store.upsert(records);
    await dataSource.query(`ANALYZE`);
    const hits = await store.query(records[5]!.vector, 10, { session: 'rare' });
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => h.session === 'rare')).toBe(true);
  });

  it('filter values with quotes and dollar signs are data, not SQL', async () => {
    const store = await PgVectorStore.open(dataSource, {
      dimensions: 2,
      table: schemas.nextTable('vectors'),
    });
    const tricky = "it's $v$; DROP TABLE x; $v$ odd";
    await store.upsert([
      { id: 'a', vector: [1, 0], session: 's', resource: tricky, cursor: 1 },
      { id: 'b', vector: [1, 0], session: 's', resource: 'plain', cursor: 2 },
    ]);
    const hits = await store.query([1, 0], 5, { resource: tricky });
    expect(hits.map((h) => [h.id, h.resource])).toEqual([['a', tricky]]);
  });

  it('refuses bad table names and dimensions before any SQL', async () => {
    await expect(
      PgVectorStore.open(dataSource, { dimensions: 3, table: 'x; drop' }),
    ).rejects.toThrow(RangeError);
    await expect(PgVectorStore.open(dataSource, { dimensions: 4000 })).rejects.toThrow(/2000/);
  });

  it('says what to install and what to run when the server has no pgvector', () => {
    const { message } = new VectorExtensionMissingError();
    expect(message).toMatch(/install pgvector on the server/);
    expect(message).toMatch(/CREATE EXTENSION vector/);
  });
});
