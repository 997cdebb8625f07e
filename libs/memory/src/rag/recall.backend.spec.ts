/**
 * `withRecall` on the simple backend with in-memory vectors and on PostgreSQL with pgvector: what
 * `retrieve(query)` recalls and leaves out, how saves are embedded, the scopes, deletes, catching
 * up at start-up, and the save times quoted across a restart.
 */
import {
  assistantMessage,
  simpleBackend,
  systemMessage,
  textContent,
  toolResultMessage,
  userMessage,
  type MemoryBackend,
  type SessionStore,
} from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestSchemas, useTestDataSource } from '@agent-memory/test-support/postgres';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { PgVectorStore } from './pgvector.store';
import { DimensionMismatchError } from './rag.errors';
import { withRecall, type RecallBackend } from './recall.backend';
import { compactFirst, ControlledEmbedder, HISTORY, recallText } from './testing/recall-fixtures';
import type { RecallOptions } from './recall-options.interface';
import type { VectorStore } from './vector-store.interface';

const AT = '2026-05-01T09:30:00.000Z';
interface Setup {
  name: string;
  backend(): Promise<MemoryBackend>;
  store(dimensions: number): Promise<VectorStore>;
}

const schemas = new TestSchemas('recall');
const dataSource = useTestDataSource(schemas);

const setups: Setup[] = [
  {
    name: 'simple backend + in-memory vectors',
    backend: () => Promise.resolve(simpleBackend({ capacity: 1000 })),
    store: (dimensions) => Promise.resolve(new InMemoryVectorStore(dimensions)),
  },
  {
    name: 'postgres backend + pgvector',
    backend: () => postgresBackend({ dataSource, table: schemas.nextTable() }),
    store: (dimensions) =>
      PgVectorStore.open(dataSource, { dimensions, table: schemas.nextTable('vectors') }),
  },
];

describe.each(setups)('withRecall: $name', (setup) => {
  let embedder: ControlledEmbedder;
  let backend: RecallBackend;
  let errors: unknown[];

  async function make(opts: Partial<RecallOptions> = {}): Promise<RecallBackend> {
    embedder = new ControlledEmbedder();
    errors = [];
    backend = withRecall(await setup.backend(), {
      embedder,
      store: await setup.store(embedder.dimensions),
      retryDelayMs: 1,
      now: () => new Date(AT),
      onError: (error) => errors.push(error),
      ...opts,
    });
    return backend;
  }
  afterEach(() => backend.close());

  async function conversation(id: string, covered = 8): Promise<SessionStore> {
    const session = await backend.open(id);
    await session.save(HISTORY);
    await backend.recallIndexer.whenIdle();
    await compactFirst(session, covered);
    return session;
  }

  it('retrieve(query) puts one system message first, quoting the found message and its neighbours with role and save time', async () => {
    await make({ topK: 1 });
    const session = await conversation('trip');
    const said = (await session.entries()).find((entry) =>
      textContent(entry.message).startsWith('My budget'),
    )!.savedAt;
    // Every store knows when it saved the message: the quote names that time.
    expect(said).toEqual(expect.any(String));
    const found = `user${said ? ` at ${said}` : ''}: My budget is 1200 euros and I am allergic to peanuts`;
    const plain = await (await setup.backend()).open('unused').then((s) => s.retrieve());
    expect(plain).toEqual([]);
    const messages = await session.retrieve('am I allergic to peanuts?');
    const text = recallText(messages);
    expect(text).not.toBeNull();
    expect(text).toContain(found);
    expect(text).not.toContain(AT);
    // The neighbours on both sides, in log order.
    const lines = text!.split('\n').filter((l) => /^(user|assistant)/.test(l));
    expect(lines).toEqual([
      'assistant: Sure, Lisbon in May is warm. Any budget?',
      found,
      'assistant: Noted: 1200 euros, no peanuts.',
    ]);
    // The rest is the usual context: summary, pinned task, tail.
    expect(messages.slice(1)).toEqual(await session.loadSnapshot().then(() => session.retrieve()));
    expect(messages.filter((m) => m.role === 'system')).toHaveLength(1);
  });

  it('leaves out what is already in the context: the tail and the pinned task', async () => {
    await make({ topK: 4, messageRange: 0 });
    const session = await conversation('ctx');
    const text = recallText(await session.retrieve('museums Gulbenkian MAAT'))!;
    expect(text).not.toContain('Gulbenkian');
    expect(text).not.toContain('museums');
    const text2 = recallText(await session.retrieve('plan a trip to Lisbon in May'));
    expect(text2 ?? '').not.toContain('Please plan a trip to Lisbon in May');
  });

  it('a session without a snapshot has everything in context: nothing is recalled', async () => {
    await make();
    const session = await backend.open('fresh');
    await session.save(HISTORY);
    await backend.recallIndexer.whenIdle();
    const messages = await session.retrieve('peanuts allergy');
    expect(recallText(messages)).toBeNull();
    expect(messages).toHaveLength(HISTORY.length);
  });

  it('a blank query recalls nothing and embeds nothing', async () => {
    await make();
    const session = await conversation('blank');
    const calls = embedder.calls.length;
    for (const query of [undefined, '', '   ']) {
      expect(recallText(await session.retrieve(query))).toBeNull();
    }
    expect(embedder.calls.length).toBe(calls);
  });

  it('merges overlapping ranges into one, each message once', async () => {
    await make({ topK: 2, messageRange: 1 });
    const session = await conversation('merge');
    const text = recallText(await session.retrieve('1200 euros budget no peanuts'))!;
    expect(text.match(/--- from/g)).toHaveLength(1);
    expect(text.match(/Noted: 1200 euros, no peanuts\./g)).toHaveLength(1);
  });

  it('minScore leaves out weak matches', async () => {
    await make({ minScore: 0.99 });
    const session = await conversation('weak');
    expect(recallText(await session.retrieve('peanuts'))).toBeNull();
  });

  it('embeds user and assistant text only, off the request path', async () => {
    await make();
    let release!: () => void;
    embedder.gate = new Promise<void>((resolve) => (release = resolve));
    const session = await backend.open('offpath');
    const called = embedder.nextCall();
    // The save resolves while the model is still held.
    await session.save([
      userMessage('weather?'),
      assistantMessage('', [
        { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } },
      ]),
      toolResultMessage('c1', 'sunny'),
      assistantMessage('It is sunny'),
      systemMessage('be brief'),
    ]);
    await called;
    expect(embedder.calls).toEqual([['weather?', 'It is sunny']]);
    release();
    await backend.recallIndexer.whenIdle();
  });

  it('a failing embedder never fails a save; the job is retried until it succeeds', async () => {
    await make({ topK: 1 });
    embedder.failuresLeft = 2;
    const session = await backend.open('flaky');
    await expect(session.save(HISTORY)).resolves.not.toThrow();
    await backend.recallIndexer.whenIdle();
    expect(errors).toHaveLength(2);
    expect(String(errors[0])).toContain('embedding service down');
    await compactFirst(session, 8);
    expect(recallText(await session.retrieve('allergic to peanuts'))).toContain('peanuts');
  });

  it('session scope: a session never recalls another session', async () => {
    await make({ scope: 'session' });
    await conversation('alice', 8);
    const bob = await backend.open('bob');
    await bob.save([userMessage('I want to visit Porto'), assistantMessage('Porto is lovely')]);
    await backend.recallIndexer.whenIdle();
    await compactFirst(bob, 1);
    const text = recallText(await bob.retrieve('peanuts allergy budget euros'));
    expect(text ?? '').not.toContain('peanuts');
  });

  it('resource scope: sessions of the same resource only', async () => {
    await make({ scope: 'resource', resourceMetaKey: 'user', messageRange: 0 });
    const old = await backend.open('u1-old');
    await old.setMeta('user', 'u1');
    await old.save([userMessage('My cat is named Pixel'), assistantMessage('Cute name.')]);
    const other = await backend.open('u2-old');
    await other.setMeta('user', 'u2');
    await other.save([userMessage('My cat is named Sushi'), assistantMessage('Nice.')]);
    const current = await backend.open('u1-new');
    await current.setMeta('user', 'u1');
    await current.save([userMessage('hello again')]);
    await backend.recallIndexer.whenIdle();
    const text = recallText(await current.retrieve('what is my cat named'))!;
    expect(text).toContain('My cat is named Pixel');
    expect(text).toContain('--- from conversation "u1-old"');
    expect(text).not.toContain('Sushi');
  });

  it('clear and delete remove the session vectors (no recall of deleted content)', async () => {
    await make({ scope: 'resource', resourceMetaKey: 'user' });
    const a = await backend.open('del-a');
    await a.setMeta('user', 'u9');
    await a.save([userMessage('the secret code is 4711')]);
    const b = await backend.open('del-b');
    await b.setMeta('user', 'u9');
    await b.save([userMessage('the door code is 1234')]);
    const c = await backend.open('del-c');
    await c.setMeta('user', 'u9');
    await c.save([userMessage('hi')]);
    await backend.recallIndexer.whenIdle();
    expect(recallText(await c.retrieve('secret code door code'))).toContain('4711');
    await a.clear();
    await backend.delete('del-b');
    expect(recallText(await c.retrieve('secret code door code'))).toBeNull();
  });

  it('a conditional delete that finds the session changed keeps it and its vectors', async () => {
    await make({ scope: 'resource', resourceMetaKey: 'user' });
    const a = await backend.open('cond-a');
    await a.setMeta('user', 'u7');
    await a.save([userMessage('the vault code is 9090')]);
    const judged = (await backend.inspect('cond-a'))!;
    await a.save([userMessage('one more')]);
    const b = await backend.open('cond-b');
    await b.setMeta('user', 'u7');
    await b.save([userMessage('hi')]);
    await backend.recallIndexer.whenIdle();

    await expect(backend.delete('cond-a', { ifUnchanged: judged })).rejects.toMatchObject({
      code: 'SESSION_CHANGED',
    });

    expect(recallText(await b.retrieve('vault code'))).toContain('9090');
    await backend.delete('cond-a', { ifUnchanged: (await backend.inspect('cond-a'))! });
    expect(await backend.inspect('cond-a')).toBeNull();
    expect(recallText(await b.retrieve('vault code'))).toBeNull();
  });

  it('catches up at start-up on what an earlier run stored without recall', async () => {
    const plain = await setup.backend();
    const session = await plain.open('backlog');
    await session.save(HISTORY);
    await compactFirst(session, 8);
    embedder = new ControlledEmbedder();
    backend = withRecall(plain, {
      embedder,
      store: await setup.store(embedder.dimensions),
      now: () => new Date(AT),
    });
    await backend.recallIndexer.whenIdle();
    const reopened = await backend.open('backlog');
    expect(recallText(await reopened.retrieve('peanuts allergy'))).toContain('peanuts');
  });

  it('refuses an embedder and a store of different dimensions before anything is written', async () => {
    const store = await setup.store(64);
    expect(() =>
      withRecall(simpleBackend({ capacity: 10 }), {
        embedder: new HashedNgramEmbedder({ dimensions: 128 }),
        store,
      }),
    ).toThrow(DimensionMismatchError);
    expect(await store.query(new Array<number>(64).fill(1), 5)).toEqual([]);
    backend = await make();
  });
});

describe('withRecall on PostgreSQL across a restart', () => {
  it('quotes the time a message was saved, not the time a new process indexed it', async () => {
    const table = schemas.nextTable();
    const first = await postgresBackend({ dataSource, table });
    const session = await first.open('restart');
    await session.save(HISTORY);
    await compactFirst(session, 8);
    const saved = (await session.entries()).find((entry) =>
      textContent(entry.message).startsWith('My budget'),
    )!.savedAt!;
    expect(new Date(saved).toISOString()).toBe(saved);
    // Some time passes before the restart, so an index time could not pass for the save time.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const restartedAt = new Date().toISOString();
    const embedder = new HashedNgramEmbedder({ dimensions: 128 });
    const restarted = withRecall(await postgresBackend({ dataSource, table }), {
      embedder,
      store: await PgVectorStore.open(dataSource, {
        dimensions: embedder.dimensions,
        table: schemas.nextTable('vectors'),
      }),
    });
    try {
      await restarted.recallIndexer.whenIdle();
      const messages = await (
        await restarted.open('restart')
      ).retrieve('am I allergic to peanuts?');
      const text = recallText(messages)!;
      expect(text).toContain(`user at ${saved}: My budget is 1200 euros`);
      expect(saved < restartedAt).toBe(true);
    } finally {
      await restarted.close();
    }
  });
});
