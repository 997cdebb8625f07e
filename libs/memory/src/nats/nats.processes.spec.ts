import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { conversation, texts } from '../../../../test/conformance/fixtures';
import { TestBuckets } from '../../../../test/support/nats';
import { testNatsUrl } from '../../../../test/support/services';
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
const buckets = new TestBuckets('procs');
let backend: NatsBackend;

beforeAll(async () => {
  backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
});
const natsStore = (): StoreSpec => ({
  kind: 'nats',
  servers: testNatsUrl(),
  bucket: backend.bucket,
});
afterAll(async () => {
  await backend.close();
  await buckets.cleanup();
});

describe('NatsMemory across OS processes', () => {
  it(`keeps every save of ${WRITERS} writer processes x ${TURNS} two-message turns, each writer in its own order`, async () => {
    const session = `procs-${process.pid}-writers`;
    const results = await runTogether(
      Array.from({ length: WRITERS }, (_, w) =>
        startScript<WriterResult>(
          STORE_PROCESS_SCRIPT,
          storeProcessArgs('writer', natsStore(), session, w, TURNS),
        ),
      ),
    );
    const retries = results.reduce((sum, r) => sum + r.retries, 0);
    console.info(
      `${WRITERS} writers x ${TURNS} turns: ${retries} saves retried after ConcurrentUpdateError`,
    );

    const got = texts(await (await backend.open(session)).retrieve());
    expect(got).toHaveLength(WRITERS * TURNS * 2);
    expect(await backend.inspect(session)).toMatchObject({
      messages: WRITERS * TURNS * 2,
      stored: WRITERS * TURNS * 2,
    });
    for (let i = 0; i < got.length; i += 2) {
      expect(got[i + 1]).toBe(got[i]!.replace('-q', '-a'));
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
        await (await backend.open(session)).save(conversation(6));
        const outcomes = await runTogether(
          ['3', '4'].map((upTo) =>
            startScript<RacerResult>(
              STORE_PROCESS_SCRIPT,
              storeProcessArgs(
                'snapshot-racer',
                natsStore(),
                session,
                upTo,
                `summary up to ${upTo}`,
              ),
            ),
          ),
        );
        return { session, outcomes };
      }),
    );
    for (const { session, outcomes } of rounds) {
      const winners = outcomes.flatMap((o, i) => (o.outcome === 'won' ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(outcomes[1 - winners[0]!]).toEqual({ outcome: 'lost', code: 'SNAPSHOT_CONFLICT' });
      const upTo = winners[0] === 0 ? 3 : 4;
      const { snapshot, tail } = await (await backend.open(session)).loadSnapshot();
      expect(snapshot).toMatchObject({ summary: `summary up to ${upTo}`, upTo });
      expect(tail.map((e) => e.cursor)).toEqual(
        Array.from({ length: 6 - upTo }, (_, i) => upTo + 1 + i),
      );
    }
  }, 120_000);
});
