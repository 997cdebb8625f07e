import {
  startFakeEmbeddings,
  type FakeEmbeddings,
} from '@agent-memory/test-support/fake-embeddings.server';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { OpenAiCompatibleEmbedder } from './openai-compatible.embedder';
import { EmbeddingFailedError } from './rag.errors';

describe('OpenAiCompatibleEmbedder against a local embeddings server', () => {
  let server: FakeEmbeddings;
  beforeEach(async () => {
    server = await startFakeEmbeddings();
  });
  afterEach(() => server.close());

  const embedder = (
    opts: Partial<ConstructorParameters<typeof OpenAiCompatibleEmbedder>[0]> = {},
  ) =>
    new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      apiKey: 'sk-test',
      model: 'text-embedding-3-small',
      dimensions: 32,
      batchSize: 2,
      retryBaseMs: 1,
      ...opts,
    });

  it('posts batches to /embeddings and returns the vectors in input order', async () => {
    const texts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const vectors = await embedder().embed(texts);
    const expected = await new HashedNgramEmbedder({ dimensions: 32 }).embed(texts);
    expect(vectors).toEqual(expected);
    expect(server.requests.map((r) => r.body.input)).toEqual([
      ['alpha', 'beta'],
      ['gamma', 'delta'],
      ['epsilon'],
    ]);
    expect(server.requests[0]!.body).toMatchObject({
      model: 'text-embedding-3-small',
      dimensions: 32,
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('an empty list makes no request', async () => {
    expect(await embedder().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('retries 429 and 5xx, then succeeds', async () => {
    server.failNext(429, { retryAfterSeconds: 0 });
    server.failNext(503);
    const vectors = await embedder().embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxAttempts with EMBEDDING_FAILED naming the status', async () => {
    for (let i = 0; i < 3; i++) server.failNext(500);
    const error = await embedder({ maxAttempts: 3 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingFailedError);
    expect(error).toMatchObject({ code: 'EMBEDDING_FAILED', status: 500 });
    expect(String((error as Error).message)).toContain('after 3 tries');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.failNext(400, { body: JSON.stringify({ error: { message: 'input too long' } }) });
    await expect(embedder().embed(['x'])).rejects.toThrow(/HTTP 400.*input too long/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses vectors of the wrong length with a clear error', async () => {
    await expect(embedder({ dimensions: 16, sendDimensions: false }).embed(['x'])).rejects.toThrow(
      /64 dimensions, expected 16/,
    );
  });

  it('refuses an answer that is not embeddings', async () => {
    server.replyRawNext(JSON.stringify({ data: [{ embedding: 'nope' }] }));
    await expect(embedder().embed(['x'])).rejects.toThrow(
      /data\[0\]\.embedding is not a list of numbers/,
    );
  });

  it('an abort stops an in-flight request', async () => {
    server.holdNext();
    const controller = new AbortController();
    const pending = embedder().embed(['x'], { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('user went away'));
    await expect(pending).rejects.toThrow('user went away');
  });

  it('an abort stops the wait between retries', async () => {
    server.failNext(503);
    const controller = new AbortController();
    const pending = embedder({ retryBaseMs: 60_000 }).embed(['x'], { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(server.requests).toHaveLength(1);
  });

  it('checks its options', () => {
    expect(() => embedder({ baseUrl: 'ftp://x' })).toThrow(TypeError);
    expect(() => embedder({ batchSize: 0 })).toThrow(/batchSize/);
    expect(() => embedder({ model: '' })).toThrow(/model/);
  });
});
