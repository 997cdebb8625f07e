import { Test } from '@nestjs/testing';
import {
  assistantMessage,
  MEMORY_BACKEND,
  MemoryModule,
  MemoryService,
  simpleBackend,
  textContent,
  userMessage,
  type MemoryBackend,
  type Message,
} from '@agent-memory/memory';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { hasRecall } from './recall.backend';

describe('MemoryModule.forRoot({ recall })', () => {
  it('wraps the backend, so runTurn gets recalled messages as its history', async () => {
    const embedder = new HashedNgramEmbedder();
    const moduleRef = await Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({
          backend: simpleBackend({ capacity: 100 }),
          recall: { embedder, store: new InMemoryVectorStore(embedder.dimensions), topK: 1 },
        }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      const backend = moduleRef.get<MemoryBackend>(MEMORY_BACKEND);
      expect(hasRecall(backend)).toBe(true);
      if (!hasRecall(backend)) return;
      const session = await backend.open('m');
      await session.save([
        userMessage('my locker number is 417'),
        assistantMessage('noted'),
        userMessage('something else'),
        assistantMessage('ok'),
      ]);
      await backend.recallIndexer.whenIdle();
      const { tail } = await session.loadSnapshot();
      await session.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
      let history: Message[] = [];
      await moduleRef
        .get(MemoryService)
        .runTurn('m', userMessage('which locker number?'), (turn) => {
          history = turn.history;
          return Promise.resolve({ answer: '417', messages: [assistantMessage('417')] });
        });
      expect(history[0]!.role).toBe('system');
      expect(textContent(history[0]!)).toContain('my locker number is 417');
    } finally {
      await moduleRef.close();
    }
  });

  it('a bad recall option fails the start-up naming it', async () => {
    const moduleRef = Test.createTestingModule({
      imports: [
        MemoryModule.forRoot({
          backend: simpleBackend({ capacity: 10 }),
          recall: {
            embedder: new HashedNgramEmbedder(),
            store: new InMemoryVectorStore(256),
            topK: 0,
          },
        }),
      ],
    }).compile();
    await expect(moduleRef).rejects.toThrow(/recall\.topK/);
  });
});
