/**
 * `withRecall`'s indexing at its edges: a session cleared while its job embeds, messages a pruning
 * store no longer holds, and a restart that embeds only what the vector store lacks.
 */
import { simpleBackend, userMessage } from '@agent-memory/memory';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { withRecall } from './recall.backend';
import { compactFirst, ControlledEmbedder, HISTORY, recallText } from './testing/recall-fixtures';

describe('withRecall: indexing edge cases', () => {
  it('a session cleared while its job is embedding keeps no vectors', async () => {
    const embedder = new ControlledEmbedder();
    const store = new InMemoryVectorStore(embedder.dimensions);
    const backend = withRecall(simpleBackend({ capacity: 100 }), { embedder, store });
    try {
      let release!: () => void;
      embedder.gate = new Promise<void>((resolve) => (release = resolve));
      const called = embedder.nextCall();
      const session = await backend.open('gone');
      await session.save([userMessage('my pin is 9876')]);
      await called;
      const clearing = session.clear();
      release();
      await clearing;
      await backend.recallIndexer.whenIdle();
      expect(store.size).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('with pruneCompacted, recall quotes a covered message the log no longer holds', async () => {
    const embedder = new ControlledEmbedder();
    const backend = withRecall(simpleBackend({ capacity: 100, pruneCompacted: true }), {
      embedder,
      store: new InMemoryVectorStore(embedder.dimensions),
      topK: 1,
    });
    try {
      const session = await backend.open('pruned');
      await session.save(HISTORY);
      await backend.recallIndexer.whenIdle();
      await compactFirst(session, 8);
      expect((await session.entries()).length).toBe(2);
      const text = recallText(await session.retrieve('I am allergic to peanuts'))!;
      // The time is the one the store recorded for the message before it was pruned.
      expect(text).toMatch(
        /user at \d{4}-\d{2}-\d{2}T[\d:.]+Z: My budget is 1200 euros and I am allergic to peanuts/,
      );
    } finally {
      await backend.close();
    }
  });

  it('a restart embeds only the messages the store does not hold yet', async () => {
    const plain = simpleBackend({ capacity: 100 });
    const store = new InMemoryVectorStore(128);
    const first = new ControlledEmbedder();
    const before = withRecall(plain, { embedder: first, store });
    const session = await before.open('restart');
    await session.save(HISTORY.slice(0, 4));
    await before.recallIndexer.whenIdle();
    await before.recallIndexer.close();
    await (await plain.open('restart')).save(HISTORY.slice(4, 6));
    const second = new ControlledEmbedder();
    const after = withRecall(plain, { embedder: second, store });
    await after.recallIndexer.whenIdle();
    expect(second.calls).toEqual([
      ['I prefer trains over planes whenever possible', 'Trains it is.'],
    ]);
    expect(store.size).toBe(6);
    await after.close();
  });
});
