import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { texts } from '@agent-memory/conformance';
import { backendSpec } from '@agent-memory/test-conformance';
import { natsDriver } from './nats.driver';
import { runTogether, startScript } from '@agent-memory/test-support/child-script';
import { TestBuckets } from '@agent-memory/test-support/nats';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type TurnWriterResult,
} from '@agent-memory/test-support/store-process';
import { testNatsUrl } from '@agent-memory/test-support/services';
import { checkTurnLog } from '@agent-memory/test-support/turn-log';

const WRITERS = 8;
const TURNS = 100;
const buckets = new TestBuckets('contend');
let backend: NatsBackend;

beforeAll(async () => {
  backend = await natsBackend({ servers: testNatsUrl(), bucket: buckets.next() });
});
afterAll(async () => {
  await backend.close();
  await buckets.cleanup();
});

describe('NatsMemory under contention from OS processes', () => {
  it(`refuses none of ${WRITERS} processes x ${TURNS} two-message turns on one session, loses none, splits none`, async () => {
    const session = `contend-${process.pid}`;
    const results = await runTogether(
      Array.from({ length: WRITERS }, (_, w) =>
        startScript<TurnWriterResult>(
          STORE_PROCESS_SCRIPT,
          storeProcessArgs(
            'turn-writer',
            backendSpec(natsDriver, {
              NATS_URL: testNatsUrl(),
              MEMORY_NATS_BUCKET: backend.bucket,
              MEMORY_NATS_TIMEOUT_MS: '2000',
            }),
            session,
            w,
            TURNS,
          ),
        ),
      ),
    );
    const refused = results.reduce((sum, r) => sum + r.refused, 0);
    const failed = results.reduce((sum, r) => sum + r.failed, 0);
    const log = texts(await (await backend.open(session)).retrieve());
    const report = checkTurnLog(log, new Map(results.map((r) => [r.writer, r.acknowledged])));
    console.info(
      `${WRITERS} processes x ${TURNS} turns on one session: refused ${refused}, failed ${failed}, ` +
        `lost ${report.lost}, duplicated ${report.duplicated}, split turns ${report.split}, ` +
        `writers out of order ${report.outOfOrder}`,
    );
    expect({ refused, failed, ...report }).toEqual({
      refused: 0,
      failed: 0,
      lost: 0,
      duplicated: 0,
      split: 0,
      outOfOrder: 0,
      present: WRITERS * TURNS,
    });
    expect(log).toHaveLength(WRITERS * TURNS * 2);
    expect(await backend.inspect(session)).toMatchObject({ messages: WRITERS * TURNS * 2 });
  }, 180_000);
});
