import { natsBackend, type NatsBackend } from '@agent-memory/memory/nats';
import { texts } from '@agent-memory/conformance';
import { startScript, runTogether } from '@agent-memory/test-support/child-script';
import {
  startThrowawayNatsCluster,
  type ThrowawayNatsCluster,
} from '@agent-memory/test-support/nats-cluster';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type TurnWriterResult,
} from '@agent-memory/test-support/store-process';
import { checkTurnLog } from '@agent-memory/test-support/turn-log';

const WRITERS = 4;
const TURNS = 150;
let cluster: ThrowawayNatsCluster;
let backend: NatsBackend;

beforeAll(async () => {
  cluster = await startThrowawayNatsCluster({ nodes: 3 });
  // The servers answer before the cluster has elected its meta leader and seen every peer; until
  // then a replicated bucket cannot be placed ("no suitable peers for placement").
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      backend = await natsBackend({
        servers: cluster.urls,
        bucket: 'cluster_sessions',
        replicas: 3,
      });
      break;
    } catch (error) {
      if (Date.now() > deadline || !/suitable peers|no leader|unavailable/i.test(String(error)))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}, 60_000);
afterAll(async () => {
  await backend?.close();
  await cluster?.dispose();
});

/** Polls until the session holds at least `count` messages. */
async function untilStored(session: string, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await backend.inspect(session).catch(() => null);
    if ((info?.messages ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`the session did not reach ${count} messages`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('NatsMemory on a three-node JetStream cluster', () => {
  it('keeps every acknowledged turn once, in order and whole, while the stream leader is stopped and brought back', async () => {
    const status = await backend.status();
    const stream = await (
      await backend.connection.jetstreamManager()
    ).streams.info(`KV_${backend.bucket}`);
    expect(stream.config.num_replicas).toBe(3);
    expect(status.bucket).toBe('cluster_sessions');

    const session = 'cluster-turns';
    const runs = Array.from({ length: WRITERS }, (_, w) =>
      startScript<TurnWriterResult>(
        STORE_PROCESS_SCRIPT,
        storeProcessArgs(
          'turn-writer',
          { kind: 'nats', servers: cluster.urls, bucket: backend.bucket, timeoutMs: 2000 },
          session,
          w,
          TURNS,
        ),
      ),
    );
    const finished = runTogether(runs);

    await untilStored(session, (WRITERS * TURNS * 2) / 5);
    const leaderName = stream.cluster?.leader;
    const leader = cluster.nodes.find((n) => n.name === leaderName) ?? cluster.nodes[0]!;
    const storedAtStop = (await backend.inspect(session))!.messages;
    await leader.stop();
    await untilStored(session, storedAtStop + (WRITERS * TURNS * 2) / 5);
    await leader.start();
    const results = await finished;

    const acknowledged = new Map(results.map((r) => [r.writer, r.acknowledged]));
    const ackedTurns = results.reduce((sum, r) => sum + r.acknowledged.length, 0);
    const failed = results.reduce((sum, r) => sum + r.failed, 0);
    const refused = results.reduce((sum, r) => sum + r.refused, 0);
    const log = texts(await (await backend.open(session)).retrieve());
    const report = checkTurnLog(log, acknowledged);
    console.info(
      `3-node cluster, ${WRITERS} processes x ${TURNS} turns, node ${leader.name} (stream leader) stopped ` +
        `at ${storedAtStop} messages and restarted: acknowledged ${ackedTurns}, failed ${failed} ` +
        `(${
          results
            .flatMap((r) => r.errors)
            .slice(0, 2)
            .join(' | ') || 'none'
        }), refused ${refused}, ` +
        `present ${report.present}, lost ${report.lost}, duplicated ${report.duplicated}, ` +
        `split ${report.split}, writers out of order ${report.outOfOrder}`,
    );
    expect(report).toMatchObject({ lost: 0, duplicated: 0, split: 0, outOfOrder: 0 });
    expect(refused).toBe(0);
    expect(report.present).toBeGreaterThanOrEqual(ackedTurns);
    expect(ackedTurns).toBeGreaterThan(0);
    expect(log).toHaveLength(report.present * 2);

    // The restarted node serves the same session once it has caught up.
    const alone = await natsBackend({ servers: leader.url, bucket: backend.bucket });
    try {
      const deadline = Date.now() + 30_000;
      let seen: string[] = [];
      while (Date.now() < deadline) {
        seen = texts(await (await alone.open(session)).retrieve());
        if (seen.length === log.length) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(seen).toEqual(log);
    } finally {
      await alone.close();
    }
  }, 240_000);
});
