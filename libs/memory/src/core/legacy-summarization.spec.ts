import type { LlmClient } from './llm-client.interface';
import { LegacySummarization } from './legacy-summarization';
import { userMessage } from './message';

// The size rules never reach the LLM; a client that would fail loudly proves it is not called.
const unusedLlm: LlmClient = {
  complete: () => Promise.reject(new Error('the size rules must not call the LLM')),
};

describe('deprecated summarization: size rules', () => {
  it.each([
    [10, 4, 4],
    [10, 10, 9],
    [10, 25, 9],
    [10, 0, 5],
    [3, 0, 1],
    [2, 0, 1],
  ])('threshold %i, size %i → replaces %i messages', (threshold, size, expected) => {
    expect(new LegacySummarization({ llm: unusedLlm, threshold, size }).size).toBe(expected);
  });

  it('refuses a threshold below 2', () => {
    expect(() => new LegacySummarization({ llm: unusedLlm, threshold: 1, size: 0 })).toThrow(
      RangeError,
    );
  });

  it('plans the oldest `size` entries once the threshold is reached', () => {
    const legacy = new LegacySummarization({ llm: unusedLlm, threshold: 4, size: 2 });
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ cursor: i + 7, message: userMessage(`m${i}`) }));
    expect(legacy.plan(entries(3))).toBeNull();
    expect(legacy.plan(entries(4))?.map((e) => e.cursor)).toEqual([7, 8]);
  });
});
