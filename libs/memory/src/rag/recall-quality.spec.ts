import { assistantMessage, simpleBackend, textContent, userMessage } from '@agent-memory/memory';
import { HashedNgramEmbedder } from './hashed-ngram.embedder';
import { InMemoryVectorStore } from './in-memory-vector.store';
import { withRecall } from './recall.backend';
import { loadLabelledRecallSet, recallAtK } from '@agent-memory/test-support/recall-quality';
import { UniversalSentenceEmbedder } from './universal-sentence.embedder';
import { fixturePath } from '@agent-memory/test-support/paths';

const SET = loadLabelledRecallSet(fixturePath('recall', 'labelled-recall.json'));

describe('recall quality on the labelled set (questions worded differently from the answer)', () => {
  // One model load for the file (~1–2 s, ~200 MB): the real offline model, no stand-in.
  const semantic = new UniversalSentenceEmbedder();

  it('the offline semantic embedder clearly beats the lexical hashed one at recall@4', async () => {
    const hashed = await recallAtK(new HashedNgramEmbedder(), SET, 4);
    const offline = await recallAtK(semantic, SET, 4);
    console.log(
      `recall@4 on ${SET.questions.length} questions: universal-sentence-encoder ${offline.toFixed(2)}, hashed n-gram ${hashed.toFixed(2)}`,
    );
    expect(offline).toBeGreaterThanOrEqual(0.7);
    expect(offline - hashed).toBeGreaterThanOrEqual(0.25);
  }, 120_000);

  it('returns 512 unit-length vectors, similar texts closer than unrelated ones', async () => {
    const [dog, puppy, stocks] = await semantic.embed([
      'We adopted a rescue greyhound named Biscuit.',
      'Tell me about our dog again.',
      'The stock market fell sharply today.',
    ]);
    expect(dog).toHaveLength(512);
    const norm = Math.hypot(...dog!);
    expect(norm).toBeCloseTo(1, 3);
    const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(cos(dog!, puppy!)).toBeGreaterThan(cos(dog!, stocks!) + 0.1);
  }, 60_000);

  it('end to end: retrieve recalls the covered fact for a paraphrased question', async () => {
    const backend = withRecall(simpleBackend({ capacity: 1000 }), {
      embedder: semantic,
      store: new InMemoryVectorStore(semantic.dimensions),
      topK: 2,
      messageRange: 0,
    });
    try {
      const session = await backend.open('quality');
      await session.save(
        SET.messages.map((m) =>
          m.role === 'user' ? userMessage(m.text) : assistantMessage(m.text),
        ),
      );
      await backend.recallIndexer.whenIdle();
      const { tail } = await session.loadSnapshot();
      await session.saveSnapshot({ summary: 'Earlier chat.' }, tail[tail.length - 3]!.cursor, null);
      const [recall] = await session.retrieve('Which antibiotic must I never be prescribed?');
      expect(recall!.role).toBe('system');
      expect(textContent(recall!)).toContain("I'm allergic to penicillin");
    } finally {
      await backend.close();
    }
  }, 120_000);

  it('an aborted embed rejects with the reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(semantic.embed(['x'], { signal: controller.signal })).rejects.toThrow('gone');
  });
});
