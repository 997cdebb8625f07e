/**
 * The cross-process half of the contract, for stores other OS processes can open
 * (`capabilities.crossProcess`): writers, snapshot racers and compactors each run as their own
 * process (`processes/store-process.script`), opening the storage with the store's `openStorage`.
 * One backend serves the three tests (they use sessions of their own).
 */
import type { CompactionResult, MemoryBackend } from '@agent-memory/memory';
import type { ProcessConformanceOptions } from '../memory-backend.conformance';
import { registration } from '../suite-context';
import { conversation, texts } from '../fixtures';
import type { MemoryBackendInitializer } from '../initializer';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type RacerResult,
  type StoreProcessRole,
  type WriterResult,
} from '../processes/store-process';
import type { TestApi } from '../test-api';
import { runTogether, startScript } from '../support/child-script';

export function describeProcessConformance(
  t: TestApi,
  initializer: MemoryBackendInitializer,
  { writers = 8, turns = 100 }: ProcessConformanceOptions = {},
): void {
  const { describe, expect, beforeAll, afterAll } = t;
  const name = initializer.name;
  const crossProcess = initializer.capabilities?.crossProcess === true;
  const adjacentTurnCursors = initializer.capabilities?.consecutiveSaveCursors === true;
  const it = registration(t, 'crossProcess', crossProcess);
  describe('across OS processes', () => {
    let backend: MemoryBackend | undefined;
    let storage: unknown;

    if (crossProcess) {
      beforeAll(async () => {
        backend = await initializer.createBackend();
        storage = initializer.storageOf!(backend);
      });
      afterAll(async () => {
        if (!backend) return;
        await (initializer.destroyBackend ? initializer.destroyBackend(backend) : backend.close());
      });
    }

    const start = <T>(role: StoreProcessRole, session: string, ...args: (string | number)[]) =>
      startScript<T>(
        STORE_PROCESS_SCRIPT,
        storeProcessArgs(initializer.processModule!, role, storage, session, ...args),
      );

    it(`keeps every save of ${writers} writer processes x ${turns} two-message turns, each writer in its own order`, async () => {
      const session = `procs-${process.pid}-writers`;
      const results = await runTogether(
        Array.from({ length: writers }, (_, w) => start<WriterResult>('writer', session, w, turns)),
      );
      const retries = results.reduce((sum, r) => sum + r.retries, 0);
      console.info(
        `${name}: ${writers} writers x ${turns} turns, ${retries} saves retried after ConcurrentUpdateError`,
      );

      const { tail } = await (await backend!.open(session)).loadSnapshot();
      const got = texts(tail.map((e) => e.message));
      expect(got).toHaveLength(writers * turns * 2);
      expect(await backend!.inspect(session)).toMatchObject({
        messages: writers * turns * 2,
        stored: writers * turns * 2,
      });
      for (let i = 0; i < got.length; i += 2) {
        expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
        // No other writer's message between a turn's two.
        if (adjacentTurnCursors) expect(tail[i + 1]!.cursor).toBe(tail[i]!.cursor + 1);
      }
      for (let w = 0; w < writers; w++) {
        const own = got.filter((t) => t.startsWith(`w${w}-q`));
        expect(own).toEqual(Array.from({ length: turns }, (_, i) => `w${w}-q${i}`));
      }
    }, 180_000);

    it('lets exactly one of two processes racing saveSnapshot win, in each of 3 rounds', async () => {
      const rounds = await Promise.all(
        [1, 2, 3].map(async (round) => {
          const session = `procs-${process.pid}-snap-${round}`;
          const memory = await backend!.open(session);
          await memory.save(conversation(6));
          const cursors = (await memory.loadSnapshot()).tail.map((e) => e.cursor);
          const outcomes = await runTogether(
            [cursors[2]!, cursors[3]!].map((upTo) =>
              start<RacerResult>('snapshot-racer', session, upTo, `summary up to ${upTo}`),
            ),
          );
          return { session, outcomes, cursors };
        }),
      );
      for (const { session, outcomes, cursors } of rounds) {
        const winners = outcomes.flatMap((o, i) => (o.outcome === 'won' ? [i] : []));
        expect(winners).toHaveLength(1);
        expect(outcomes[1 - winners[0]!]).toEqual({ outcome: 'lost', code: 'SNAPSHOT_CONFLICT' });
        const upTo = cursors[winners[0] === 0 ? 2 : 3]!;
        const { snapshot, tail } = await (await backend!.open(session)).loadSnapshot();
        expect(snapshot).toMatchObject({ summary: `summary up to ${upTo}`, upTo });
        expect(tail.map((e) => e.cursor)).toEqual(cursors.filter((c) => c > upTo));
      }
    }, 120_000);

    it('lets one of two processes compacting the same session at once win, losing nothing', async () => {
      const session = `procs-${process.pid}-compact`;
      const memory = await backend!.open(session);
      await memory.save(conversation(40));
      const results = await runTogether(
        ['first', 'second'].map((who) => start<CompactionResult>('compactor', session, 6, who)),
      );
      const winners = results.filter((r) => r.compacted);
      expect(winners.length).toBeGreaterThanOrEqual(1);
      // The loser reloads and decides again: the winner's snapshot left it nothing new to cover.
      for (const r of results.filter((r) => !r.compacted)) {
        expect(['conflict', 'nothing-to-cover']).toContain(r.reason);
      }
      const { snapshot, tail } = await memory.loadSnapshot();
      expect(snapshot?.upTo).toBe(Math.max(...winners.map((w) => w.upTo!)));
      expect(tail.map((e) => e.message)).toEqual(conversation(40).slice(-6));
      expect((await backend!.inspect(session))?.messages).toBe(40);
    }, 120_000);
  });
}
