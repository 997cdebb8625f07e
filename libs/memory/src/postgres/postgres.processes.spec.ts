import type { CompactionResult } from '@agent-memory/memory';
import { postgresBackend, type PostgresBackend } from '@agent-memory/memory/postgres';
import { conversation, texts } from '../../../../test/conformance/fixtures';
import { TestSchemas } from '../../../../test/support/postgres';
import { runTogether, startScript } from '../../../../test/support/child-script';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type RacerResult,
  type StoreSpec,
  type WriterResult,
} from '../../../../test/support/store-process';

const WRITERS = 8;
const TURNS = 100;
const schemas = new TestSchemas('pgprocs');
let backend: PostgresBackend;

beforeAll(async () => {
  backend = await postgresBackend({ url: schemas.url, table: schemas.nextTable() });
});
const pgStore = (): StoreSpec => ({
  kind: 'postgres',
  url: schemas.url,
  table: backend.tables.table,
});
afterAll(async () => {
  await backend.close();
  await schemas.cleanup();
});

describe('PostgresMemory across OS processes', () => {
  it(`keeps every save of ${WRITERS} writer processes x ${TURNS} two-message turns, each writer in its own order`, async () => {
    const session = `procs-${process.pid}-writers`;
    await runTogether(
      Array.from({ length: WRITERS }, (_, w) =>
        startScript<WriterResult>(
          STORE_PROCESS_SCRIPT,
          storeProcessArgs('writer', pgStore(), session, w, TURNS),
        ),
      ),
    );

    const { tail } = await (await backend.open(session)).loadSnapshot();
    const got = texts(tail.map((e) => e.message));
    expect(got).toHaveLength(WRITERS * TURNS * 2);
    expect(await backend.inspect(session)).toMatchObject({
      messages: WRITERS * TURNS * 2,
      stored: WRITERS * TURNS * 2,
    });
    for (let i = 0; i < got.length; i += 2) {
      expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
      // A turn's two rows have consecutive seqs: no other writer's row between them.
      expect(tail[i + 1]!.cursor).toBe(tail[i]!.cursor + 1);
    }
    for (let w = 0; w < WRITERS; w++) {
      const own = got.filter((t) => t.startsWith(`w${w}-q`));
      expect(own).toEqual(Array.from({ length: TURNS }, (_, i) => `w${w}-q${i}`));
    }
  }, 180_000);

  it('lets exactly one of two processes racing saveSnapshot win, in each of 3 rounds', async () => {
    const rounds = await Promise.all(
      [1, 2, 3].map(async (round) => {
        const session = `procs-${process.pid}-snap-${round}`;
        const memory = await backend.open(session);
        await memory.save(conversation(6));
        const cursors = (await memory.loadSnapshot()).tail.map((e) => e.cursor);
        const outcomes = await runTogether(
          [cursors[2]!, cursors[3]!].map((upTo) =>
            startScript<RacerResult>(
              STORE_PROCESS_SCRIPT,
              storeProcessArgs('snapshot-racer', pgStore(), session, upTo, `summary up to ${upTo}`),
            ),
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
      const { snapshot, tail } = await (await backend.open(session)).loadSnapshot();
      expect(snapshot).toMatchObject({ summary: `summary up to ${upTo}`, upTo });
      expect(tail.map((e) => e.cursor)).toEqual(cursors.filter((c) => c > upTo));
    }
  }, 120_000);

  it('lets one of two processes compacting the same session at once win, losing nothing', async () => {
    const session = `procs-${process.pid}-compact`;
    const memory = await backend.open(session);
    await memory.save(conversation(40));
    const results = await runTogether(
      ['first', 'second'].map((name) =>
        startScript<CompactionResult>(
          STORE_PROCESS_SCRIPT,
          storeProcessArgs('compactor', pgStore(), session, 6, name),
        ),
      ),
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
    expect((await backend.inspect(session))?.messages).toBe(40);
  }, 120_000);
});
