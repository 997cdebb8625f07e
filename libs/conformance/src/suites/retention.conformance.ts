/**
 * Retention against a real backend (docs/operations.md#retention), as one suite each backend
 * plugs into: `describeRetentionConformance('postgres', postgresHarness())`. Sessions are written
 * for real; the sweeper's clock is set ahead instead of sleeping.
 */
import {
  assistantMessage,
  canPruneCovered,
  InMemoryLeaseStore,
  KEEP_LOG_META_KEY,
  RetentionSweeper,
  SessionChangedError,
  userMessage,
  type MemoryBackend,
  type Message,
  type RetentionPolicy,
  type RetentionSweeperOptions,
} from '@agent-memory/memory';
import type { ConformanceContext } from '../suite-context';

const SECOND_MS = 1000;

/** Resolves after `ms`: only to put a gap between two writes' `updatedAt`. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeRetentionConformance(ctx: ConformanceContext): void {
  const { describe, it, expect } = ctx.t;
  const { backend, newId, replica, itPruning } = ctx;
  describe('retention', () => {
    async function sessionWith(b: MemoryBackend, turns = 2): Promise<string> {
      const id = newId();
      const s = await b.open(id);
      for (let i = 0; i < turns; i++) {
        await s.save([userMessage(`question ${i}`), assistantMessage(`answer ${i}`)]);
      }
      return id;
    }

    function sweeper(
      b: MemoryBackend,
      policy: RetentionPolicy,
      at: number,
      extra: Partial<RetentionSweeperOptions> = {},
    ): RetentionSweeper {
      return new RetentionSweeper(b, { policy, now: () => at, ...extra });
    }

    /**
     * `b` whose `list` stops on its first call until `open()`: a sweep through `held` holds its
     * lease while the test starts others; `listing` resolves once it is stopped there.
     */
    function heldAtFirstList(b: MemoryBackend) {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      let listed!: () => void;
      const listing = new Promise<void>((resolve) => (listed = resolve));
      const held: MemoryBackend = new Proxy(b, {
        get(target, property, receiver) {
          if (property !== 'list') return Reflect.get(target, property, receiver);
          return async (q: Parameters<MemoryBackend['list']>[0]) => {
            listed();
            await gate;
            return target.list(q);
          };
        },
      });
      return { held, listing, open };
    }

    async function ids(b: MemoryBackend): Promise<string[]> {
      return (await b.list({ limit: 500 })).items.map((info) => info.id).sort();
    }

    it('deletes the sessions idle longer than maxIdle and keeps the others', async () => {
      const b = await backend();
      const idle = await sessionWith(b);
      await pause(60);
      const between = Date.now();
      await pause(60);
      const active = await sessionWith(b);

      const result = await sweeper(
        b,
        { maxIdle: '2s', action: 'delete' },
        between + 2 * SECOND_MS + 1,
      ).sweep();

      expect(result).toEqual({ expired: [idle], action: 'delete', dryRun: false, ran: true });
      expect(await ids(b)).toEqual([active]);
      expect(await b.inspect(idle)).toBeNull();
      // A deleted session opens empty, as if new.
      expect(await (await b.open(idle)).retrieve()).toEqual([]);
    });

    it('deletes the sessions older than maxAge', async () => {
      const b = await backend();
      const old = await sessionWith(b);
      const result = await sweeper(
        b,
        { maxAge: '30d', action: 'delete' },
        Date.now() + 31 * 86_400_000,
      ).sweep();
      expect(result.expired).toEqual([old]);
      expect(await b.inspect(old)).toBeNull();
    });

    it('measures age from the first save, never expiring a session early', async () => {
      const b = await backend();
      const id = newId();
      const s = await b.open(id);
      await s.save([userMessage('first')]);
      await pause(1100);
      await s.save([userMessage('second')]);
      const [first] = await s.entries({ limit: 1 });

      const result = await new RetentionSweeper(b, {
        policy: { maxAge: '1s', action: 'delete' },
      }).sweep();

      // Written just now, but first saved over a second ago: old by its first message's time.
      // A store that does not record when a message was saved falls back to the last write,
      // which is recent: the session stays.
      expect(result.expired).toEqual(first.savedAt === undefined ? [] : [id]);
    });

    it('a dry run reports what would expire and changes nothing', async () => {
      const b = await backend();
      const first = await sessionWith(b);
      const second = await sessionWith(b, 3);
      const before = await Promise.all([first, second].map((id) => b.inspect(id)));
      const later = Date.now() + 10 * SECOND_MS;

      const dry = await sweeper(b, { maxIdle: '1s', action: 'delete' }, later).sweep({
        dryRun: true,
      });

      expect(dry.dryRun).toBe(true);
      expect([...dry.expired].sort()).toEqual([first, second].sort());
      expect(await Promise.all([first, second].map((id) => b.inspect(id)))).toEqual(before);
    });

    it('never touches a session whose metadata says retention = keep', async () => {
      const b = await backend();
      const kept = await sessionWith(b);
      await (await b.open(kept)).setMeta('retention', 'keep');
      const gone = await sessionWith(b);

      const result = await sweeper(
        b,
        { maxIdle: '1s', maxAge: '1s', action: 'delete' },
        Date.now() + 60 * SECOND_MS,
      ).sweep();

      expect(result.expired).toEqual([gone]);
      expect((await b.inspect(kept))?.messages).toBe(4);
    });

    itPruning(false)(
      'keep-summary keeps the snapshot, the tail after it and the count; drops the covered log',
      async () => {
        const b = await backend({ pruneCompacted: false });
        const summarised = await sessionWith(b, 3);
        const store = await b.open(summarised);
        const snapshot = await store.saveSnapshot(
          { summary: 'they asked three questions' },
          4,
          null,
        );
        const plain = await sessionWith(b, 2);
        const policy: RetentionPolicy = { maxIdle: '1s', action: 'keep-summary' };
        const later = Date.now() + 60 * SECOND_MS;

        const dry = await sweeper(b, policy, later).sweep({ dryRun: true });
        expect(dry.expired).toEqual([summarised]);
        expect((await store.entries()).map((e) => e.cursor)).toEqual([1, 2, 3, 4, 5, 6]);

        const result = await sweeper(b, policy, later).sweep();

        expect(result).toEqual({
          expired: [summarised],
          action: 'keep-summary',
          dryRun: false,
          ran: true,
        });
        const reopened = await b.open(summarised);
        const state = await reopened.loadSnapshot();
        expect(state.snapshot).toEqual(snapshot);
        expect(state.tail.map((e) => e.cursor)).toEqual([5, 6]);
        expect((await reopened.entries()).map((e) => e.cursor)).toEqual([5, 6]);
        const info = await b.inspect(summarised);
        expect(info).toMatchObject({ messages: 6, stored: 2, hasSnapshot: true, snapshotUpTo: 4 });
        // No snapshot, no summary to keep: the session is left as it was.
        expect((await b.inspect(plain))?.stored).toBe(4);
        // Already reduced: the next sweep has nothing left to drop and does not count it again.
        expect((await sweeper(b, policy, later + 60 * SECOND_MS).sweep()).expired).toEqual([]);
      },
    );

    itPruning(true)(
      'a session keeping its whole log (keep-log metadata) loses nothing to any pruning',
      async () => {
        const b = await backend({ pruneCompacted: true });
        const id = await sessionWith(b, 3);
        const store = await b.open(id);
        await store.setMeta(KEEP_LOG_META_KEY, 'langgraph');
        // Compaction's snapshot with pruneCompacted on: saved, nothing dropped.
        await store.saveSnapshot({ summary: 'they asked three questions' }, 4, null);
        expect((await store.entries()).map((e) => e.cursor)).toEqual([1, 2, 3, 4, 5, 6]);
        if (canPruneCovered(store)) expect(await store.pruneCovered()).toBe(0);
        const policy: RetentionPolicy = { maxIdle: '1s', action: 'keep-summary' };
        const result = await sweeper(b, policy, Date.now() + 60 * SECOND_MS).sweep();
        expect(result.expired).not.toContain(id);
        expect((await (await b.open(id)).entries()).map((e) => e.cursor)).toEqual([
          1, 2, 3, 4, 5, 6,
        ]);
        expect((await (await b.open(id)).loadSnapshot()).snapshot?.upTo).toBe(4);
      },
    );

    it('walks every page of the list in bounded batches', async () => {
      const b = await backend();
      const all: string[] = [];
      for (let i = 0; i < 5; i++) all.push(await sessionWith(b, 1));

      const result = await sweeper(
        b,
        { maxIdle: '1s', action: 'delete' },
        Date.now() + 60 * SECOND_MS,
        {
          batchSize: 2,
        },
      ).sweep();

      expect([...result.expired].sort()).toEqual([...all].sort());
      expect(await ids(b)).toEqual([]);
    });

    it('of two sweepers sharing a lease store, only the one holding the lease works', async () => {
      const b = await backend();
      const ids = [await sessionWith(b, 1), await sessionWith(b, 1)];
      const leases = new InMemoryLeaseStore();
      // The first sweeper's backend stops on its first page until the second has tried.
      const { held, listing, open: openGate } = heldAtFirstList(b);
      const policy: RetentionPolicy = { maxIdle: '1s', action: 'delete' };
      const later = Date.now() + 60 * SECOND_MS;
      const one = sweeper(held, policy, later, { leases }).sweep();
      await listing;

      const two = await sweeper(b, policy, later, { leases }).sweep();
      openGate();

      expect(two).toEqual({ expired: [], action: 'delete', dryRun: false, ran: false });
      expect([...(await one).expired].sort()).toEqual([...ids].sort());
      // Once the first is done the lease is free again.
      expect((await sweeper(b, policy, later, { leases }).sweep()).ran).toBe(true);
    });

    it('three sweeps at once on one sweeper: one runs, the others are refused and free nothing', async () => {
      const b = await backend();
      const all = [await sessionWith(b, 1), await sessionWith(b, 1)];
      // The sweep that gets the lease stops on its first page until the others have tried.
      const { held, listing, open: openGate } = heldAtFirstList(b);
      const one = sweeper(held, { maxIdle: '1s', action: 'delete' }, Date.now() + 60 * SECOND_MS);

      const first = one.sweep();
      await listing;
      const others = await Promise.all([one.sweep(), one.sweep()]);
      // A refused sweep must not have freed the lease: a fourth is still refused.
      const fourth = await one.sweep();
      openGate();

      expect(others.map((r) => r.ran)).toEqual([false, false]);
      expect(others.flatMap((r) => r.expired)).toEqual([]);
      expect(fourth.ran).toBe(false);
      expect([...(await first).expired].sort()).toEqual([...all].sort());
      expect((await one.sweep()).ran).toBe(true);
    });

    it('a write landing between the judgement and the delete survives the sweep', async () => {
      const b = await backend();
      const id = await sessionWith(b, 1);
      const other = await replica(b);
      // The sweep's last look at the session (inspect, just before deleting) is answered, then
      // another writer appends before the sweep acts on that answer.
      const race = writeAfterFirstInspect(b, other, userMessage('late but acknowledged'));
      const racing = race.backend;

      const result = await sweeper(
        racing,
        { maxIdle: '1s', action: 'delete' },
        Date.now() + 60 * SECOND_MS,
      ).sweep();

      expect(race.wrote()).toBe(true);
      expect(result.expired).toEqual([]);
      const entries = await (await b.open(id)).entries();
      expect(entries.map((e) => e.message)).toEqual([
        userMessage('question 0'),
        assistantMessage('answer 0'),
        userMessage('late but acknowledged'),
      ]);
      // Judged again on the next sweep, the unchanged session goes.
      const next = await sweeper(
        b,
        { maxIdle: '1s', action: 'delete' },
        Date.now() + 60 * SECOND_MS,
      ).sweep();
      expect(next.expired).toEqual([id]);
    });

    itPruning(false)(
      'keep-summary leaves the log of a session written between the judgement and the prune',
      async () => {
        const b = await backend({ pruneCompacted: false });
        const id = await sessionWith(b, 3);
        await (await b.open(id)).saveSnapshot({ summary: 'three questions' }, 4, null);
        const other = await replica(b, { pruneCompacted: false });
        const race = writeAfterFirstInspect(b, other, userMessage('back again'));
        const racing = race.backend;

        const result = await sweeper(
          racing,
          { maxIdle: '1s', action: 'keep-summary' },
          Date.now() + 60 * SECOND_MS,
        ).sweep();

        expect(race.wrote()).toBe(true);
        expect(result.expired).toEqual([]);
        const store = await b.open(id);
        expect((await store.entries()).map((e) => e.cursor)).toEqual([1, 2, 3, 4, 5, 6, 7]);
        // Refused directly too: a description older than the session prunes nothing.
        const stale = (await b.inspect(id))!;
        await store.setMeta('title', 'renamed');
        if (!canPruneCovered(store))
          throw new Error('keep-summary needs the session store to implement pruneCovered');
        await expect(store.pruneCovered({ ifUnchanged: stale })).rejects.toMatchObject({
          code: 'SESSION_CHANGED',
        });
        expect((await store.entries()).length).toBe(7);
        expect(await store.pruneCovered({ ifUnchanged: (await b.inspect(id))! })).toBe(4);
      },
    );

    it('delete with ifUnchanged deletes an unchanged session and refuses a changed one', async () => {
      const b = await backend();
      const id = await sessionWith(b, 1);
      const judged = (await b.inspect(id))!;
      const s = await b.open(id);

      await s.setMeta('title', 'renamed');
      await expect(b.delete(id, { ifUnchanged: judged })).rejects.toBeInstanceOf(
        SessionChangedError,
      );
      expect((await b.inspect(id))?.meta.title).toBe('renamed');

      const metaJudged = (await b.inspect(id))!;
      await s.save([userMessage('one more')]);
      await expect(b.delete(id, { ifUnchanged: metaJudged })).rejects.toMatchObject({
        code: 'SESSION_CHANGED',
      });
      expect((await b.inspect(id))?.messages).toBe(3);

      await b.delete(id, { ifUnchanged: (await b.inspect(id))! });
      expect(await b.inspect(id)).toBeNull();
      // Gone: a second conditional delete has nothing that matches.
      await expect(b.delete(id, { ifUnchanged: judged })).rejects.toBeInstanceOf(
        SessionChangedError,
      );
      // A description of another session is a mistake, named before any I/O.
      await expect(b.delete(id, { ifUnchanged: { ...judged, id: 'other' } })).rejects.toThrow(
        /SessionInfo of that session/,
      );
    });
  });
}

/**
 * `backend` as a sweep sees it, with a race forced: the first `inspect` is answered, then `other`
 * saves `message` into that session before the caller acts on the answer.
 */
function writeAfterFirstInspect(
  backend: MemoryBackend,
  other: MemoryBackend,
  message: Message,
): { backend: MemoryBackend; wrote: () => boolean } {
  let wrote = false;
  const racing: MemoryBackend = new Proxy(backend, {
    get(target, property, receiver) {
      if (property !== 'inspect') return Reflect.get(target, property, receiver);
      return async (sessionId: string) => {
        const info = await target.inspect(sessionId);
        if (!wrote) {
          wrote = true;
          await (await other.open(sessionId)).save([message]);
        }
        return info;
      };
    },
  });
  return { backend: racing, wrote: () => wrote };
}
