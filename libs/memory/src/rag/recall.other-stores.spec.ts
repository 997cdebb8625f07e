/**
 * `withRecall` over stores other than those `recall.backend.spec.ts` runs on: the JSON-file
 * backend (a file written with recall reads back without it) and a store with the deprecated
 * summarization option.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  jsonFileBackend,
  OpenAiCompatibleClient,
  simpleBackend,
  SUMMARY_PREFIX,
  systemMessage,
} from '@agent-memory/memory';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { withRecall } from './recall.backend';
import { ControlledEmbedder, HISTORY, recallText } from './testing/recall-fixtures';

describe('withRecall on the JSON-file backend', () => {
  it('works over any backend, unchanged: a file written with recall reads back without it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recall-'));
    try {
      const backend = withRecall(jsonFileBackend({ dir }), {
        embedder: new HashedNgramEmbedder(),
        store: new InMemoryVectorStore(256),
      });
      const session = await backend.open('j');
      await session.save(HISTORY);
      await backend.recallIndexer.whenIdle();
      await backend.close();
      const plain = await jsonFileBackend({ dir }).open('j');
      expect(await plain.retrieve()).toEqual(HISTORY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('withRecall over a store with the deprecated summarization option', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.close());

  it('retrieve(query) shows the summary as that store does (a system message), after the recall message', async () => {
    const embedder = new ControlledEmbedder();
    const llmClient = new OpenAiCompatibleClient({ baseUrl: llm.baseUrl, apiKey: 'k', model: 'm' });
    const backend = withRecall(
      simpleBackend({ capacity: 100, summarization: { llm: llmClient, threshold: 8, size: 6 } }),
      { embedder, store: new InMemoryVectorStore(embedder.dimensions), topK: 1 },
    );
    try {
      const session = await backend.open('legacy');
      await session.save(HISTORY.slice(0, 6));
      await backend.recallIndexer.whenIdle();
      llm.reply('Trip planning so far.');
      await session.save(HISTORY.slice(6)); // 10 kept messages: the oldest 6 are summarised
      const context = await session.retrieve();
      expect(context[0]).toEqual(systemMessage(`${SUMMARY_PREFIX}Trip planning so far.`));
      expect(context).toHaveLength(5);

      const recalled = await session.retrieve('I am allergic to peanuts');
      expect(recallText(recalled)).toMatch(/My budget is 1200 euros and I am allergic to peanuts/);
      expect(recalled.slice(1)).toEqual(context);
    } finally {
      await backend.close();
    }
  });
});
