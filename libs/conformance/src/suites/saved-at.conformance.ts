/**
 * When each batch was saved (`Entry.savedAt`): recorded by every store, shared by a batch's
 * messages, kept through snapshots, pruning, rewrites and reopening, and set by
 * `SaveOptions.savedAt` for imports (docs/storage-formats.md).
 */
import { canPruneCovered, userMessage, type Entry, type SessionStore } from '@agent-memory/memory';
import { conversation } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

/** Saves `batch` and returns the save's window, in milliseconds. */
async function timedSave(
  s: SessionStore,
  batch: Parameters<SessionStore['save']>[0],
): Promise<{ before: number; after: number }> {
  const before = Date.now();
  await s.save(batch);
  return { before, after: Date.now() };
}

function expectWithin(
  expect: jest.Expect,
  entry: Entry,
  window: { before: number; after: number },
): void {
  expect(entry.savedAt).toEqual(expect.any(String));
  const at = Date.parse(entry.savedAt!);
  expect(new Date(at).toISOString()).toBe(entry.savedAt);
  expect(at).toBeGreaterThanOrEqual(window.before);
  expect(at).toBeLessThanOrEqual(window.after);
}

const timesOf = (entries: readonly Entry[]) => entries.map((e) => e.savedAt);

export function describeSavedAtConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { session, replica } = ctx;
  describe('save times (savedAt)', () => {
    ctx.itPruning(false)(
      'records when each batch was saved, shared by its messages, in every read',
      async () => {
        const { b, id, s } = await session({ pruneCompacted: false });
        const first = await timedSave(s, conversation(2));
        // A later batch gets a later (or equal) time of its own.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const second = await timedSave(s, conversation(3, 2));
        const entries = await s.entries();
        expect(entries).toHaveLength(5);
        entries.slice(0, 2).forEach((entry) => expectWithin(expect, entry, first));
        entries.slice(2).forEach((entry) => expectWithin(expect, entry, second));
        expect(new Set(timesOf(entries.slice(0, 2))).size).toBe(1);
        expect(new Set(timesOf(entries.slice(2))).size).toBe(1);
        expect(entries[2]!.savedAt! > entries[1]!.savedAt!).toBe(true);

        expect((await s.loadSnapshot()).tail).toEqual(entries);
        expect(await s.entries({ after: entries[1]!.cursor, limit: 2 })).toEqual(
          entries.slice(2, 4),
        );
        const again = await (await replica(b)).open(id);
        expect(await again.entries()).toEqual(entries);
      },
    );

    ctx.itWith('pruneCompactedOption', ctx.capabilities.pruneCompactedOption)(
      'keeps the times through a snapshot, with and without pruning',
      async () => {
        for (const pruneCompacted of [false, true]) {
          const { b, id, s } = await session({ pruneCompacted });
          await s.save(conversation(2));
          await s.save(conversation(2, 2));
          const before = await s.entries();
          await s.saveSnapshot({ summary: 'the first turn' }, before[2]!.cursor, null);
          const after = await (await replica(b, { pruneCompacted })).open(id);
          const expected = pruneCompacted ? before.slice(3) : before;
          expect(await after.entries()).toEqual(expected);
          expect((await after.loadSnapshot()).tail).toEqual(before.slice(3));
          await s.save([userMessage('after the snapshot')]);
          const [last] = await s.entries({ after: before[3]!.cursor });
          expect(last!.savedAt! >= before[3]!.savedAt!).toBe(true);
        }
      },
    );

    ctx.itPruning(false)(
      'keeps the times of the messages a later prune of covered ones leaves (retention)',
      async () => {
        const { b, id, s } = await session({ pruneCompacted: false });
        await s.save(conversation(2), { savedAt: '2026-01-01T00:00:00.000Z' });
        await s.save(conversation(2, 2), { savedAt: '2026-01-02T00:00:00.000Z' });
        const before = await s.entries();
        await s.saveSnapshot({ summary: 'the first three' }, before[2]!.cursor, null);
        if (!canPruneCovered(s)) throw new Error('every built-in store prunes covered messages');
        expect(await s.pruneCovered()).toBe(3);
        const after = await (await replica(b)).open(id).then((r) => r.entries());
        expect(after).toEqual(before.slice(3));
        expect(after[0]!.savedAt).toBe('2026-01-02T00:00:00.000Z');
      },
    );

    ctx.itPruning(false)(
      'keeps the times when metadata is set and when the session grows large (a change of form)',
      async () => {
        const { b, id, s } = await session({ pruneCompacted: false });
        await s.save(conversation(2));
        const small = await s.entries();
        await s.setMeta('title', 'moves the session out of the plain form');
        // Past the JSON files' plain size (16 KiB): a stored form of its own on that store.
        await s.save([userMessage('x'.repeat(20_000))], { savedAt: '2026-01-02T03:04:05.678Z' });
        const entries = await (await replica(b)).open(id).then((r) => r.entries());
        expect(entries.slice(0, 2)).toEqual(small);
        expect(entries[2]!.savedAt).toBe('2026-01-02T03:04:05.678Z');
        await s.setMeta('title', '');
        expect(await s.entries()).toEqual(entries);
      },
    );

    it('records SaveOptions.savedAt instead of now, in UTC, with or without an idempotency key', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(2), { savedAt: '2025-06-30T23:59:59+02:00' });
      await s.save([userMessage('keyed')], {
        savedAt: '2025-07-01T08:00:00.5Z',
        idempotencyKey: 'import-2',
      });
      const window = await timedSave(s, [userMessage('now')]);
      const entries = await (await replica(b)).open(id).then((r) => r.entries());
      expect(timesOf(entries.slice(0, 3))).toEqual([
        '2025-06-30T21:59:59.000Z',
        '2025-06-30T21:59:59.000Z',
        '2025-07-01T08:00:00.500Z',
      ]);
      expectWithin(expect, entries[3]!, window);
      // A replayed key stores nothing: the first save's time stays.
      const replay = await s.save([userMessage('keyed')], {
        savedAt: '2030-01-01T00:00:00Z',
        idempotencyKey: 'import-2',
      });
      expect(replay.replayed).toBe(true);
      expect(timesOf(await s.entries())).toEqual(timesOf(entries));
    });

    it('refuses a savedAt that is not an ISO 8601 time with a zone, naming it and writing nothing', async () => {
      const { s } = await session();
      await s.save([userMessage('kept')]);
      const before = await s.entries();
      for (const bad of [
        'yesterday',
        '2026-12-04',
        '2026-12-04T10:00:00',
        '2026-02-30T10:00:00Z',
        '2026-12-04T25:00:00Z',
        '',
        12 as unknown as string,
      ]) {
        await expect(s.save([userMessage('lost')], { savedAt: bad })).rejects.toMatchObject({
          code: 'INVALID_SAVE_OPTION',
          option: 'savedAt',
          message: expect.stringContaining('savedAt'),
        });
      }
      expect(await s.entries()).toEqual(before);
    });
  });
}
