/**
 * Compaction costs: token counting (cold: fresh counter and fresh message objects, so nothing is
 * cached; cached: the same objects counted again) and a whole compaction of a 10,000-message
 * session with the extractive summariser, next to a plain `retrieve` of that session.
 */
import {
  assistantMessage,
  ExtractiveSummarizer,
  SimpleMemory,
  SummaryCompactor,
  TokenCounter,
  toolResultMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { measure, measureEach, ratio, type BenchSuite } from './harness';

const COUNTED = 1_000;
const SESSION = 10_000;

function messages(count: number, salt: string): Message[] {
  return Array.from({ length: count }, (_, i) => {
    const text = `${salt} message ${i}: the user asks how to roll back the deployment of service ${i % 17} without losing the queue.`;
    if (i % 10 === 8) {
      return assistantMessage('', [
        {
          id: `c${i}`,
          type: 'function',
          function: { name: 'kubectl', arguments: `{"rollout":"undo","n":${i}}` },
        },
      ]);
    }
    if (i % 10 === 9) return toolResultMessage(`c${i - 1}`, `rolled back ${text}`);
    return i % 2 === 0 ? userMessage(text) : assistantMessage(text);
  });
}

export const suite: BenchSuite = {
  name: 'Compaction',
  async run() {
    let round = 0;
    const cold = await measure(`count ${COUNTED} messages, cold`, 'TokenCounter (o200k)', () => {
      new TokenCounter().count(messages(COUNTED, `r${++round}`));
    });
    const counter = new TokenCounter();
    const reused = messages(COUNTED, 'cached');
    counter.count(reused);
    const cached = await measure(`count ${COUNTED} messages, cached`, 'TokenCounter (o200k)', () =>
      counter.count(reused),
    );

    const log = messages(SESSION, 'session');
    const prepare = async () => {
      const store = new SimpleMemory(SESSION);
      await store.save(log);
      return store;
    };
    const store = await prepare();
    const retrieve = await measure(`retrieve ${SESSION / 1000}k messages`, 'SimpleMemory', () =>
      store.retrieve(),
    );
    const compactor = new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: 20 });
    const compaction = await measureEach(
      `compact ${SESSION / 1000}k messages (extractive)`,
      'SummaryCompactor',
      prepare,
      (fresh) => compactor.compact(fresh, { thresholdTokens: 1 }),
      10,
    );
    return {
      results: [cold, cached, retrieve, compaction],
      notes: [
        `token counting: ${Math.round(cold.opsPerSec * COUNTED).toLocaleString('en-US')} messages/s cold, ${Math.round(cached.opsPerSec * COUNTED).toLocaleString('en-US')} messages/s cached (${ratio(cached.opsPerSec, cold.opsPerSec)})`,
        `one compaction of ${SESSION.toLocaleString('en-US')} messages costs ${ratio(compaction.meanMs, retrieve.meanMs)} a plain retrieve (cold token counts included)`,
      ],
    };
  },
};
