import { readFileSync } from 'node:fs';
import type { Embedder } from '../../libs/memory/src/rag/embedder.interface';
import { InMemoryVectorStore } from '../../libs/memory/src/rag/in-memory-vector.store';

/** The labelled recall set (`test/fixtures/recall/labelled-recall.json`). */
export interface LabelledRecallSet {
  messages: { role: 'user' | 'assistant'; text: string }[];
  /** `answer`: the index in `messages` of the message that answers `query`. */
  questions: { query: string; answer: number }[];
}

/** Reads a labelled recall set from a JSON file. */
export function loadLabelledRecallSet(path: string): LabelledRecallSet {
  return JSON.parse(readFileSync(path, 'utf8')) as LabelledRecallSet;
}

/**
 * recall@k of an embedder on a labelled set: the share of questions whose answering message is
 * among the `k` nearest messages (exact search).
 */
export async function recallAtK(
  embedder: Embedder,
  set: LabelledRecallSet,
  k: number,
): Promise<number> {
  const store = new InMemoryVectorStore(embedder.dimensions);
  const vectors = await embedder.embed(set.messages.map((m) => m.text));
  await store.upsert(
    vectors.map((vector, i) => ({
      id: String(i),
      vector,
      session: 's',
      resource: null,
      cursor: i,
    })),
  );
  const queries = await embedder.embed(set.questions.map((q) => q.query));
  let found = 0;
  for (const [i, question] of set.questions.entries()) {
    const hits = await store.query(queries[i]!, k);
    if (hits.some((hit) => hit.cursor === question.answer)) found++;
  }
  return found / set.questions.length;
}
