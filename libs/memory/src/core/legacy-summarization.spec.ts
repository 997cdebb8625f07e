import type { LlmClient } from './llm-client.interface';
import { LegacySummaryPolicy } from './legacy-summarization';
import type { StoredSnapshot } from './memory.interface';
import { systemMessage, userMessage } from './message';
import { SUMMARY_PREFIX } from './snapshot';

// The size rules never reach the LLM; a client that would fail loudly proves it is not called.
const unusedLlm: LlmClient = {
  complete: () => Promise.reject(new Error('the size rules must not call the LLM')),
};

const entries = (n: number, from = 7) =>
  Array.from({ length: n }, (_, i) => ({ cursor: i + from, message: userMessage(`m${i}`) }));
const snapshot: StoredSnapshot = { summary: 'before', upTo: 6, createdAt: '2026-01-01T00:00:00Z' };

describe('deprecated summarization: size rules', () => {
  it.each([
    [10, 4, 4],
    [10, 10, 9],
    [10, 25, 9],
    [10, 0, 5],
    [3, 0, 1],
    [2, 0, 1],
  ])('threshold %i, size %i → replaces %i messages', (threshold, size, expected) => {
    expect(new LegacySummaryPolicy({ llm: unusedLlm, threshold, size }).size).toBe(expected);
  });

  it('refuses a threshold below 2', () => {
    expect(() => new LegacySummaryPolicy({ llm: unusedLlm, threshold: 1, size: 0 })).toThrow(
      RangeError,
    );
  });

  it('plans the oldest `size` entries once the threshold is reached', () => {
    const legacy = new LegacySummaryPolicy({ llm: unusedLlm, threshold: 4, size: 2 });
    expect(legacy.plan({ snapshot: null, tail: entries(3) })).toBeNull();
    const plan = legacy.plan({ snapshot: null, tail: entries(4) })!;
    expect(plan.covers.map((e) => e.cursor)).toEqual([7, 8]);
    expect(plan.prev).toBeNull();
  });

  it('counts the previous summary as the oldest message of the kept view and summarises it again', () => {
    const legacy = new LegacySummaryPolicy({ llm: unusedLlm, threshold: 4, size: 2 });
    expect(legacy.plan({ snapshot, tail: entries(2) })).toBeNull();
    const plan = legacy.plan({ snapshot, tail: entries(3) })!;
    expect(plan.messages).toEqual([systemMessage(`${SUMMARY_PREFIX}before`), userMessage('m0')]);
    expect(plan.covers.map((e) => e.cursor)).toEqual([7]);
    expect(plan.prev).toBe(snapshot);
  });

  it('covers at least one stored message when `size` is 1, so the kept view shrinks', () => {
    const legacy = new LegacySummaryPolicy({ llm: unusedLlm, threshold: 2, size: 1 });
    const plan = legacy.plan({ snapshot, tail: entries(1) })!;
    expect(plan.messages).toHaveLength(2);
    expect(plan.covers.map((e) => e.cursor)).toEqual([7]);
  });

  it('shows the summary as a system message in front of the context', () => {
    const legacy = new LegacySummaryPolicy({ llm: unusedLlm, threshold: 2, size: 1 });
    expect(legacy.context(snapshot, [userMessage('next')])).toEqual([
      systemMessage(`${SUMMARY_PREFIX}before`),
      userMessage('next'),
    ]);
    expect(legacy.context(null, [userMessage('next')])).toEqual([userMessage('next')]);
  });
});
