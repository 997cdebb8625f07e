import { userMessage } from '../core/message';
import { importBatches, MAX_IMPORT_BATCH_MESSAGES, type ImportPlan } from './import-plan';

const planOf = (savedAts: (string | undefined)[], covered = 0): ImportPlan => ({
  messages: savedAts.map((savedAt, i) => ({ message: userMessage(`m${i}`), savedAt })),
  covered,
  snapshot: null,
});

describe('importBatches', () => {
  it("keeps the source's batches, cut at the snapshot's boundary", () => {
    const plan = planOf(['a', 'a', 'b', 'b', 'b', undefined], 4);
    expect(importBatches(plan).map((b) => [b.start, b.messages.length])).toEqual([
      [0, 2],
      [2, 2],
      [4, 1],
      [5, 1],
    ]);
  });

  it('saves a source batch of 150,000 messages in runs of at most 500, each with its time', () => {
    const plan = planOf(Array.from({ length: 150_000 }, () => '2026-01-01T00:00:00.000Z'));
    const batches = importBatches(plan);
    expect(batches).toHaveLength(150_000 / MAX_IMPORT_BATCH_MESSAGES);
    expect(batches.every((b) => b.messages.length === MAX_IMPORT_BATCH_MESSAGES)).toBe(true);
    expect(batches.at(-1)!.start).toBe(150_000 - MAX_IMPORT_BATCH_MESSAGES);
  });
});
