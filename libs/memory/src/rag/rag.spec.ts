import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { PgVectorStore } from './pgvector.store';
import { Rag } from './rag';
import { DimensionMismatchError } from './rag.errors';
import { chunkText } from './text-chunker';

const schemas = new TestSchemas('rag');
const dataSource = useTestDataSource(schemas);

const DOCS = [
  {
    id: 'refunds',
    text: 'Refunds are paid within 14 days to the original card. Gift cards are not refundable.',
    metadata: { source: 'policy.md' },
    resource: 'shop-a',
  },
  {
    id: 'shipping',
    text: 'Parcels ship from Hamburg every weekday; express shipping costs 9 euros.',
    resource: 'shop-a',
  },
  { id: 'other-tenant', text: 'Refunds take 30 days at shop B.', resource: 'shop-b' },
];

describe.each([
  ['in-memory', () => Promise.resolve(new InMemoryVectorStore(256))],
  [
    'pgvector',
    () => PgVectorStore.open(dataSource, { dimensions: 256, table: schemas.nextTable('docs') }),
  ],
])('Rag over %s', (_name, makeStore) => {
  it('ingests documents and finds the nearest chunks with their metadata', async () => {
    const rag = new Rag({ embedder: new HashedNgramEmbedder(), store: await makeStore() });
    expect(await rag.ingest(DOCS)).toEqual({ chunks: 3 });
    const [hit] = await rag.query('how many days until refunds are paid', 1, {
      resource: 'shop-a',
    });
    expect(hit).toMatchObject({
      documentId: 'refunds',
      chunk: 0,
      metadata: { source: 'policy.md' },
    });
    expect(hit!.text).toContain('14 days');
    expect(await rag.query('   ', 3)).toEqual([]);
  });

  it('ingesting a document again replaces its chunks; delete removes them', async () => {
    const rag = new Rag({
      embedder: new HashedNgramEmbedder(),
      store: await makeStore(),
      chunkChars: 40,
      overlapChars: 5,
    });
    const long = 'Alpha beta gamma delta. '.repeat(10);
    const { chunks } = await rag.ingest([{ id: 'doc', text: long }]);
    expect(chunks).toBeGreaterThan(3);
    await rag.ingest([{ id: 'doc', text: 'Only one short chunk now.' }]);
    const hits = await rag.query('alpha beta gamma', 10);
    expect(hits.map((h) => h.text)).toEqual(['Only one short chunk now.']);
    await rag.delete('doc');
    expect(await rag.query('alpha', 10)).toEqual([]);
  });
});

describe('Rag options', () => {
  it('refuses an embedder and store of different sizes, and bad documents before embedding', async () => {
    expect(
      () =>
        new Rag({
          embedder: new HashedNgramEmbedder({ dimensions: 8 }),
          store: new InMemoryVectorStore(9),
        }),
    ).toThrow(DimensionMismatchError);
    const store = new InMemoryVectorStore(256);
    const rag = new Rag({ embedder: new HashedNgramEmbedder(), store });
    await expect(
      rag.ingest([
        { id: 'ok', text: 'fine' },
        { id: '', text: 'x' },
      ]),
    ).rejects.toThrow(/documents\[1\]\.id/);
    expect(store.size).toBe(0);
  });
});

describe('chunkText', () => {
  it('cuts at sentence ends with overlap, never longer than the limit, covering the text', () => {
    const text = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const chunks = chunkText(text, 100, 20);
    expect(chunks.every((c) => c.length <= 100)).toBe(true);
    expect(chunks[0]).toMatch(/\.$/);
    expect(chunks.join(' ')).toContain('Sentence number 29 is here.');
    expect(chunkText('   ', 100, 10)).toEqual([]);
  });

  it('is linear on a text with no spaces', () => {
    const chunks = chunkText('x'.repeat(200_000), 1000, 100);
    expect(chunks.length).toBeGreaterThan(200);
    expect(chunks.every((c) => c.length <= 1000)).toBe(true);
  });
});
