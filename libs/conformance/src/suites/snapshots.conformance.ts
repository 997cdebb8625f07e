/**
 * Snapshots: the summary in the context, cursors, conflicts and pruning
 * (docs/architecture.md#snapshots).
 */
import {
  InvalidCursorError,
  InvalidMessageError,
  SnapshotConflictError,
  SUMMARY_PREFIX,
  summaryMessages,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { conversation, texts } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

export function describeSnapshotConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { session, replica } = ctx;
  const prunesByDefault = ctx.capabilities.prunesCompactedByDefault;
  describe('snapshots', () => {
    it('starts with no snapshot and every entry in the tail, cursors strictly increasing', async () => {
      const { s } = await session();
      expect(await s.loadSnapshot()).toEqual({ snapshot: null, tail: [] });
      await s.save(conversation(4));
      const { snapshot, tail } = await s.loadSnapshot();
      expect(snapshot).toBeNull();
      expect(texts(tail.map((e) => e.message))).toEqual(['u0', 'a1', 'u2', 'a3']);
      for (let i = 1; i < tail.length; i++)
        expect(tail[i]!.cursor).toBeGreaterThan(tail[i - 1]!.cursor);
    });

    it('retrieves the summary as a user message, then the pinned messages, then the tail', async () => {
      const { s } = await session();
      await s.save(conversation(6));
      const { tail } = await s.loadSnapshot();
      const task = userMessage('the task');
      const stored = await s.saveSnapshot(
        { summary: 'they talked', pinned: [task] },
        tail[3]!.cursor,
        null,
      );
      expect(stored).toMatchObject({
        summary: 'they talked',
        pinned: [task],
        upTo: tail[3]!.cursor,
      });
      expect(new Date(stored.createdAt).toISOString()).toBe(stored.createdAt);
      const context = await s.retrieve();
      expect(context).toEqual([...summaryMessages(stored), ...conversation(2, 4)]);
      expect(context[0]).toEqual(userMessage(SUMMARY_PREFIX + 'they talked'));
      const state = await s.loadSnapshot();
      expect(state.snapshot).toEqual(stored);
      expect(state.tail.map((e) => e.cursor)).toEqual([tail[4]!.cursor, tail[5]!.cursor]);
    });

    ctx.itPruning(true)(
      'keeps cursors stable while a second writer appends and snapshots prune',
      async () => {
        const { b, id, s } = await session({ pruneCompacted: true });
        await s.save(conversation(4));
        const before = (await s.loadSnapshot()).tail;
        const other = await (await replica(b, { pruneCompacted: true })).open(id);
        await other.save(conversation(2, 4));
        await other.saveSnapshot({ summary: 's1' }, before[1]!.cursor, null);
        const after = (await s.loadSnapshot()).tail;
        expect(after.slice(0, 2)).toEqual(before.slice(2));
        expect(texts(after.map((e) => e.message))).toEqual(['u2', 'a3', 'u4', 'a5']);
      },
    );

    it('refuses a snapshot based on a stale prev with SnapshotConflictError', async () => {
      const { s } = await session();
      await s.save(conversation(6));
      const { tail } = await s.loadSnapshot();
      const first = await s.saveSnapshot({ summary: 'one' }, tail[1]!.cursor, null);
      await expect(s.saveSnapshot({ summary: 'two' }, tail[3]!.cursor, null)).rejects.toThrow(
        SnapshotConflictError,
      );
      const second = await s.saveSnapshot({ summary: 'two' }, tail[3]!.cursor, first);
      await expect(
        s.saveSnapshot({ summary: 'three' }, tail[5]!.cursor, first),
      ).rejects.toMatchObject({
        code: 'SNAPSHOT_CONFLICT',
      });
      expect((await s.loadSnapshot()).snapshot).toEqual(second);
    });

    it('refuses a prev when there is no snapshot yet', async () => {
      const { s } = await session();
      await s.save(conversation(2));
      const { tail } = await s.loadSnapshot();
      const phantom = {
        summary: 'x',
        upTo: tail[0]!.cursor,
        createdAt: new Date().toISOString(),
      };
      await expect(s.saveSnapshot({ summary: 'y' }, tail[1]!.cursor, phantom)).rejects.toThrow(
        SnapshotConflictError,
      );
    });

    it('refuses cursors that do not move past prev or lie beyond the last message', async () => {
      const { s } = await session();
      await expect(s.saveSnapshot({ summary: 'x' }, 1, null)).rejects.toThrow(InvalidCursorError);
      await s.save(conversation(4));
      const { tail } = await s.loadSnapshot();
      const last = tail[3]!.cursor;
      await expect(s.saveSnapshot({ summary: 'x' }, last + 1, null)).rejects.toMatchObject({
        code: 'INVALID_CURSOR',
      });
      const first = await s.saveSnapshot({ summary: 'x' }, tail[1]!.cursor, null);
      await expect(s.saveSnapshot({ summary: 'y' }, tail[1]!.cursor, first)).rejects.toThrow(
        InvalidCursorError,
      );
      await expect(s.saveSnapshot({ summary: 'y' }, tail[0]!.cursor, first)).rejects.toThrow(
        InvalidCursorError,
      );
      expect((await s.loadSnapshot()).snapshot).toEqual(first);
    });

    it('lets exactly one of two racing snapshots with the same prev win', async () => {
      const { b, id, s } = await session();
      await s.save(conversation(6));
      const other = await (await replica(b)).open(id);
      const { tail } = await s.loadSnapshot();
      const results = await Promise.allSettled([
        s.saveSnapshot({ summary: 'mine' }, tail[2]!.cursor, null),
        other.saveSnapshot({ summary: 'theirs' }, tail[3]!.cursor, null),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toBeInstanceOf(SnapshotConflictError);
      expect((await s.loadSnapshot()).snapshot).toEqual(
        (won[0] as PromiseFulfilledResult<unknown>).value,
      );
    });

    it(`${prunesByDefault ? 'drops' : 'keeps'} covered messages by default`, async () => {
      const { b, id, s } = await session();
      await s.save(conversation(5));
      const { tail } = await s.loadSnapshot();
      await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
      const info = await b.inspect(id);
      expect(info).toMatchObject({
        messages: 5,
        stored: prunesByDefault ? 2 : 5,
        hasSnapshot: true,
        snapshotUpTo: tail[2]!.cursor,
      });
    });

    for (const prune of [true, false]) {
      ctx.itPruning(prune)(
        `with pruneCompacted ${prune}, stores what it should and always returns the same context`,
        async () => {
          const { b, id, s } = await session({ pruneCompacted: prune });
          await s.save(conversation(5));
          const { tail } = await s.loadSnapshot();
          await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
          expect(await b.inspect(id)).toMatchObject({ messages: 5, stored: prune ? 2 : 5 });
          expect(texts((await s.loadSnapshot()).tail.map((e) => e.message))).toEqual(['a3', 'u4']);
          expect(texts(await s.retrieve()).slice(1)).toEqual(['a3', 'u4']);
        },
      );
    }

    it('validates pinned messages', async () => {
      const { s } = await session();
      await s.save(conversation(2));
      const { tail } = await s.loadSnapshot();
      const pinned = [{ role: 'user', parts: [{ type: 'text', text: 1 }] }] as unknown as Message[];
      await expect(s.saveSnapshot({ summary: 's', pinned }, tail[0]!.cursor, null)).rejects.toThrow(
        InvalidMessageError,
      );
      expect((await s.loadSnapshot()).snapshot).toBeNull();
    });
  });
}
