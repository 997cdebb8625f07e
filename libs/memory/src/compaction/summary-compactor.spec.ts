import type { Cursor, Snapshot, SnapshotStore, StoredSnapshot } from '../core/memory.interface';
import { assistantMessage, userMessage, type Message } from '../core/message';
import { SimpleMemory } from '../simple/simple.store';
import { ExtractiveSummarizer } from './extractive.summarizer';
import { SummaryCompactor } from './summary-compactor';
import { renderTranscript } from './transcript';

/**
 * A real store whose snapshot saves are each preceded by another compactor's save (as a second
 * replica would), for the first `races` saves: the compactor then loses the compare-and-swap.
 */
function racedStore(races: number): { store: SnapshotStore; inner: SimpleMemory } {
  const inner = new SimpleMemory(1000);
  const store: SnapshotStore = {
    retrieve: (query, opts) => inner.retrieve(query, opts),
    save: (messages, opts) => inner.save(messages, opts),
    clear: (opts) => inner.clear(opts),
    loadSnapshot: (opts) => inner.loadSnapshot(opts),
    async saveSnapshot(snapshot: Snapshot, upTo: Cursor, prev: StoredSnapshot | null) {
      if (races-- > 0) {
        const { snapshot: latest, tail } = await inner.loadSnapshot();
        await inner.saveSnapshot({ summary: `racer ${races}` }, tail[0]!.cursor, latest);
      }
      return inner.saveSnapshot(snapshot, upTo, prev);
    },
  };
  return { store, inner };
}

const turns = (count: number) =>
  Array.from({ length: count }, (_, i) => [userMessage(`q${i}`), assistantMessage(`a${i}`)]).flat();

describe('SummaryCompactor', () => {
  it('reloads after a lost race and compacts on what is stored then', async () => {
    const { store, inner } = racedStore(1);
    await store.save(turns(10));
    const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
      keepRecent: 4,
    }).compact(store, {
      thresholdTokens: 1,
    });
    expect(result.compacted).toBe(true);
    const { snapshot, tail } = await inner.loadSnapshot();
    expect(snapshot?.upTo).toBe(result.upTo);
    expect(tail).toHaveLength(4);
  });

  it("reports 'conflict' after losing twice, leaving the winner's snapshot alone", async () => {
    const { store, inner } = racedStore(2);
    await store.save(turns(10));
    const result = await new SummaryCompactor(new ExtractiveSummarizer(), {
      keepRecent: 4,
    }).compact(store, {
      thresholdTokens: 1,
    });
    expect(result).toMatchObject({ compacted: false, reason: 'conflict' });
    expect((await inner.loadSnapshot()).snapshot?.summary).toBe('racer 0');
  });

  it('rethrows a summariser failure and saves nothing', async () => {
    const store = new SimpleMemory(100);
    await store.save(turns(5));
    const failing = { summarize: async () => Promise.reject(new Error('summariser down')) };
    await expect(
      new SummaryCompactor(failing, { keepRecent: 2 }).compact(store, { thresholdTokens: 1 }),
    ).rejects.toThrow('summariser down');
    expect((await store.loadSnapshot()).snapshot).toBeNull();
  });

  describe('a summary that would not shrink the context', () => {
    // A summariser that copies the transcript verbatim: its snapshot is bigger than what it covers.
    const verbose = {
      summarize: async ({ messages }: { messages: Message[] }) => renderTranscript(messages),
    };

    it("saves nothing and reports 'no-gain' with the token counts", async () => {
      const store = new SimpleMemory(100);
      await store.save(turns(6));
      const result = await new SummaryCompactor(verbose, { keepRecent: 2 }).compact(store, {
        thresholdTokens: 1,
        force: true,
      });
      expect(result).toMatchObject({ compacted: false, reason: 'no-gain' });
      expect(result.tokensAfter).toBeGreaterThanOrEqual(result.tokensBefore);
      expect((await store.loadSnapshot()).snapshot).toBeNull();
      expect(await store.retrieve()).toHaveLength(12);
    });

    it("reports 'no-gain' on a dry run too", async () => {
      const store = new SimpleMemory(100);
      await store.save(turns(6));
      const result = await new SummaryCompactor(verbose, { keepRecent: 2 }).compact(store, {
        thresholdTokens: 1,
        dryRun: true,
      });
      expect(result).toMatchObject({ compacted: false, reason: 'no-gain' });
      expect(result.snapshot?.summary).toContain('user: q0');
    });

    it('saves when the same session is summarised smaller', async () => {
      const store = new SimpleMemory(100);
      await store.save(turns(6));
      const terse = { summarize: async () => 'short' };
      const result = await new SummaryCompactor(terse, { keepRecent: 2 }).compact(store, {
        thresholdTokens: 1,
      });
      expect(result.compacted).toBe(true);
      expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    });
  });

  it('refuses a negative keepRecent and a threshold that is not positive', async () => {
    expect(() => new SummaryCompactor(new ExtractiveSummarizer(), { keepRecent: -1 })).toThrow(
      RangeError,
    );
    await expect(
      new SummaryCompactor(new ExtractiveSummarizer()).compact(new SimpleMemory(10), {
        thresholdTokens: 0,
      }),
    ).rejects.toThrow(RangeError);
  });
});
