/**
 * The stored log (`entries`): kept entries, covered ones, paging by cursor
 * (docs/architecture.md#the-contract-in-detail).
 */
import { conversation } from '../fixtures';
import type { ConformanceContext } from '../suite-context';

export function describeLogConformance(ctx: ConformanceContext): void {
  const { describe, expect } = ctx.t;
  const { session } = ctx;
  describe('the stored log', () => {
    ctx.itPruning(false)(
      'lists kept entries oldest first, covered ones included, paged by cursor',
      async () => {
        const { s } = await session({ pruneCompacted: false });
        await s.save(conversation(5));
        const { tail } = await s.loadSnapshot();
        await s.saveSnapshot({ summary: 's' }, tail[2]!.cursor, null);
        const all = await s.entries();
        expect(all).toEqual(tail);
        const firstPage = await s.entries({ limit: 2 });
        expect(firstPage).toEqual(tail.slice(0, 2));
        expect(await s.entries({ after: firstPage[1]!.cursor, limit: 2 })).toEqual(
          tail.slice(2, 4),
        );
        expect(await s.entries({ after: tail[4]!.cursor })).toEqual([]);
      },
    );

    ctx.itPruning(true)('lists only what is kept once a snapshot prunes', async () => {
      const { s } = await session({ pruneCompacted: true });
      await s.save(conversation(4));
      const { tail } = await s.loadSnapshot();
      await s.saveSnapshot({ summary: 's' }, tail[1]!.cursor, null);
      expect(await s.entries()).toEqual(tail.slice(2));
    });
  });
}
