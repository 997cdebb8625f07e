/**
 * `RecallBackend.search`: the indexed messages nearest to a query in one session, one resource's
 * sessions or every session, best first, whatever each session's context holds now; `minScore`
 * applies, a blank query finds nothing, documents of a shared vector store are never hits, and a
 * failing embedder is `EmbeddingFailedError`.
 */
import { simpleBackend, userMessage, assistantMessage } from '@agent-memory/memory';
import type { EmbedOptions, Embedder } from './embedder.interface';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { EmbeddingFailedError } from './rag.errors';
import { withRecall, type RecallBackend } from './recall.backend';
import type { RecallOptions } from './recall-options.interface';

/** The hashed embedder, made to fail on demand (a real embedder, no mock). */
class FailingEmbedder implements Embedder {
  readonly inner = new HashedNgramEmbedder({ dimensions: 128 });
  readonly model = this.inner.model;
  readonly dimensions = this.inner.dimensions;
  failing = false;
  embed(texts: readonly string[], opts?: EmbedOptions): Promise<number[][]> {
    if (this.failing) return Promise.reject(new Error('embedding service down'));
    return this.inner.embed(texts, opts);
  }
}

describe('RecallBackend.search', () => {
  let embedder: FailingEmbedder;
  let store: InMemoryVectorStore;
  let backend: RecallBackend;

  async function make(options: Partial<RecallOptions> = {}): Promise<void> {
    embedder = new FailingEmbedder();
    store = new InMemoryVectorStore(128);
    backend = withRecall(simpleBackend({ capacity: 100 }), {
      embedder,
      store,
      onError: () => undefined,
      ...options,
    });
    const seed = async (id: string, resource: string, texts: string[]) => {
      const session = await backend.open(id);
      await session.setMeta('resource', resource);
      await session.save(texts.map((t, i) => (i % 2 ? assistantMessage(t) : userMessage(t))));
    };
    await seed('ana.trip', 'ana', ['I booked the hotel Avenida in Lisbon', 'Great choice.']);
    await seed('ana.food', 'ana', ['I am allergic to peanuts', 'Noted.']);
    await seed('ben.trip', 'ben', ['I booked the hotel Bristol in Porto', 'Enjoy.']);
    await backend.recallIndexer.whenIdle();
  }
  afterEach(() => backend.close());

  it('searches every session, best first, with cursors and save times', async () => {
    await make();
    const hits = await backend.search('which hotel did I book', { limit: 3 });
    expect(
      hits
        .slice(0, 2)
        .map((h) => h.sessionId)
        .sort(),
    ).toEqual(['ana.trip', 'ben.trip']);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    const [first] = hits;
    const stored = await (await backend.open(first!.sessionId)).entries();
    expect(stored.find((e) => e.cursor === first!.cursor)).toMatchObject({
      message: { role: first!.role },
      savedAt: first!.savedAt,
    });
  });

  it('keeps to one resource or one session, and returns at most limit hits', async () => {
    await make();
    const ana = await backend.search('hotel', { resource: 'ana', limit: 10 });
    expect(new Set(ana.map((h) => h.sessionId))).toEqual(new Set(['ana.trip', 'ana.food']));
    expect(ana).toHaveLength(4);
    const ben = await backend.search('hotel', { sessionId: 'ben.trip', limit: 1 });
    expect(ben).toEqual([
      expect.objectContaining({
        sessionId: 'ben.trip',
        text: 'I booked the hotel Bristol in Porto',
      }),
    ]);
  });

  it('finds messages still in the context (unlike recall), never documents of a shared store', async () => {
    await make();
    const [policy] = await embedder.embed(['hotel booking policy']);
    await store.upsert([
      {
        id: 'doc-1',
        vector: policy!,
        session: null,
        resource: null,
        cursor: null,
        payload: { text: 'hotel booking policy' },
      },
    ]);
    // The document is the exact match, and is left out.
    const hits = await backend.search('hotel booking policy', { limit: 10 });
    expect(hits).toHaveLength(6);
    expect(hits.some((h) => h.text === 'hotel booking policy')).toBe(false);
    const exact = await backend.search('I booked the hotel Avenida in Lisbon', { limit: 1 });
    expect(exact).toEqual([
      expect.objectContaining({
        sessionId: 'ana.trip',
        text: 'I booked the hotel Avenida in Lisbon',
      }),
    ]);
    expect(exact[0]!.score).toBeCloseTo(1, 5);
  });

  it('leaves out matches below minScore', async () => {
    await make({ minScore: 0.3 });
    const hits = await backend.search('I booked the hotel Avenida in Lisbon', { limit: 10 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThan(6);
    expect(hits.every((h) => h.score >= 0.3)).toBe(true);
  });

  it('finds nothing for a blank query, and reports a failing embedder as EmbeddingFailedError', async () => {
    await make();
    expect(await backend.search('   ', { limit: 5 })).toEqual([]);
    embedder.failing = true;
    await expect(backend.search('hotel', { limit: 5 })).rejects.toBeInstanceOf(
      EmbeddingFailedError,
    );
  });
});
