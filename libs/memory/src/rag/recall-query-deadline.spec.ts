/**
 * A slow or broken embedder never holds a turn: against a real local embeddings server that hangs,
 * asks to be retried in an hour, or answers far more than embeddings take, `retrieve(query)`
 * returns the context without recall (reporting the failure), `recall()` throws
 * `EmbeddingFailedError`, and indexing goes on retrying in the background.
 */
import { simpleBackend, userMessage, assistantMessage } from '@agent-memory/memory';
import {
  startFakeEmbeddings,
  type FakeEmbeddings,
} from '@agent-memory/test-support/fake-embeddings.server';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { OpenAiCompatibleEmbedder } from './openai-compatible.embedder';
import { EmbeddingFailedError } from './rag.errors';
import { RECALL_HEADER } from './recall.engine';
import { withRecall, type RecallBackend } from './recall.backend';
import type { RecallOperation } from './recall-options.interface';

const DIMENSIONS = 32;

describe('a recall query against a slow or broken embedder', () => {
  let server: FakeEmbeddings;
  let backend: RecallBackend;
  let failures: { error: unknown; sessionId: string | null; operation: RecallOperation }[];

  beforeEach(async () => {
    server = await startFakeEmbeddings(DIMENSIONS);
    failures = [];
    backend = withRecall(simpleBackend({ capacity: 100 }), {
      embedder: new OpenAiCompatibleEmbedder({
        baseUrl: server.baseUrl,
        model: 'm',
        dimensions: DIMENSIONS,
        retryBaseMs: 1,
      }),
      store: new InMemoryVectorStore(DIMENSIONS),
      queryTimeoutMs: 1000,
      retryDelayMs: 1,
      onError: (error, sessionId, operation) => failures.push({ error, sessionId, operation }),
    });
    const session = await backend.open('s1');
    await session.save([
      userMessage('my cat is called Miso'),
      assistantMessage('Miso is a lovely name'),
    ]);
    await backend.recallIndexer.whenIdle();
    // A summary now covers both: they are out of the context, so recall is what brings them back.
    const { tail } = await session.loadSnapshot();
    await session.saveSnapshot({ summary: 'Talked about pets.' }, tail[1]!.cursor, null);
  });

  afterEach(async () => {
    await backend.close();
    await server.close();
  });

  /** The context with a recall message when the embedder answers; kept to compare against. */
  async function expectNoRecallWhile(script: () => void): Promise<void> {
    const session = await backend.open('s1');
    script();
    const context = await session.retrieve('what is my cat called?');
    expect(context.some((m) => m.parts[0]?.text?.startsWith(RECALL_HEADER))).toBe(false);
    expect(failures).toEqual([
      expect.objectContaining({
        sessionId: 's1',
        operation: 'query',
        error: expect.any(EmbeddingFailedError),
      }),
    ]);
    script();
    await expect(backend.recall('s1', 'what is my cat called?')).rejects.toBeInstanceOf(
      EmbeddingFailedError,
    );
  }

  it('recalls while the embedder answers (the baseline the other cases lose)', async () => {
    const recalled = await backend.recall('s1', 'what is my cat called?');
    expect(recalled.message).not.toBeNull();
    expect(failures).toEqual([]);
  });

  it('returns the context without recall when the embedder hangs', async () => {
    const held: { release(): void }[] = [];
    await expectNoRecallWhile(() => held.push(server.holdNext()));
    for (const hold of held) hold.release();
  });

  it('does not wait out a Retry-After of an hour', async () => {
    await expectNoRecallWhile(() => server.failNext(429, { retryAfterSeconds: 3600 }));
  });

  it('refuses an answer larger than embeddings take, without retrying it', async () => {
    const huge = `{"data":[{"embedding":[${'0.5,'.repeat(2_000_000)}0.5]}]}`;
    await expectNoRecallWhile(() => server.replyRawNext(huge));
    // The embedder alone, with no deadline: the answer is cut off by its size, and not retried.
    const embedder = new OpenAiCompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'm',
      dimensions: DIMENSIONS,
      retryBaseMs: 1,
    });
    server.replyRawNext(huge);
    const before = server.requests.length;
    await expect(embedder.embed(['what is my cat called?'])).rejects.toThrow(/maxResponseBytes/);
    expect(server.requests.length - before).toBe(1);
  });

  it('indexing keeps retrying in the background after a query gave up', async () => {
    const session = await backend.open('s1');
    server.failNext(429, { retryAfterSeconds: 0 });
    server.failNext(503);
    await session.save([userMessage('my dog is called Rex'), assistantMessage('Hello Rex')]);
    await backend.recallIndexer.whenIdle();
    const { tail, snapshot } = await session.loadSnapshot();
    await session.saveSnapshot({ summary: 'Talked about pets.' }, tail[1]!.cursor, snapshot);
    const recalled = await backend.recall('s1', 'what is my dog called?');
    expect(recalled.message).not.toBeNull();
  });
});
