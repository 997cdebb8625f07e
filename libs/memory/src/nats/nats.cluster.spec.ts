import { natsBackend, natsDriver, type NatsBackend } from '@agent-memory/memory/nats';
import { texts } from '@agent-memory/conformance';
import { backendSpec } from '@agent-memory/test-conformance';
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

/** Processes saving each turn with its own idempotency key, as `MemoryService.runTurn` does. */
const KEYED_WRITERS = 4;
/** One more process saving without keys: a save it is not answered may or may not be stored. */
const PLAIN_WRITER = String(KEYED_WRITERS);
const TURNS = 150;
const ALL_MESSAGES = (KEYED_WRITERS + 1) * TURNS * 2;
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
    const store = backendSpec(
      natsDriver,
      {
        NATS_URL: cluster.urls[0]!,
        MEMORY_NATS_BUCKET: backend.bucket,
        MEMORY_NATS_TIMEOUT_MS: '2000',
        // The budget counts the election's unanswered requests too; five processes writing one
        // session through it on a busy machine can spend the default 10 s losing races after them.
        MEMORY_NATS_WRITE_BUDGET_MS: '30000',
      },
      // Every server of the cluster, so that a process reconnects past the stopped one.
      { servers: cluster.urls },
    );
    const runs = Array.from({ length: KEYED_WRITERS + 1 }, (_, w) =>
      startScript<TurnWriterResult>(
        STORE_PROCESS_SCRIPT,
        storeProcessArgs(
          'turn-writer',
          store,
          session,
          w,
          TURNS,
          String(w) === PLAIN_WRITER ? 'plain' : 'keyed',
        ),
      ),
    );
    const finished = runTogether(runs);

    await untilStored(session, ALL_MESSAGES / 5);
    const leaderName = stream.cluster?.leader;
    const leader = cluster.nodes.find((n) => n.name === leaderName) ?? cluster.nodes[0]!;
    const storedAtStop = (await backend.inspect(session))!.messages;
    await leader.stop();
    await untilStored(session, storedAtStop + ALL_MESSAGES / 5);
    await leader.start();
    const results = await finished;

    const keyed = results.filter((r) => r.writer !== PLAIN_WRITER);
    const plain = results.find((r) => r.writer === PLAIN_WRITER)!;
    const acknowledged = new Map(results.map((r) => [r.writer, r.acknowledged]));
    const ackedTurns = results.reduce((sum, r) => sum + r.acknowledged.length, 0);
    const keyedFailed = keyed.reduce((sum, r) => sum + r.failed + r.refused, 0);
    const log = texts(await (await backend.open(session)).retrieve());
    const report = checkTurnLog(log, acknowledged);
    const describe = (r: TurnWriterResult) =>
      `${r.failed + r.refused} failed (${r.errors.slice(0, 2).join(' | ') || 'none'})`;
    console.info(
      `3-node cluster, ${KEYED_WRITERS} keyed processes + 1 plain x ${TURNS} turns, node ` +
        `${leader.name} (stream leader) stopped at ${storedAtStop} messages and restarted: ` +
        `keyed ${keyed.reduce((sum, r) => sum + r.acknowledged.length, 0)} acknowledged, ` +
        `${keyed.map(describe).join(', ')}; plain ${plain.acknowledged.length} acknowledged, ` +
        `${describe(plain)}; present ${report.present}, lost ${report.lost}, duplicated ` +
        `${report.duplicated}, split ${report.split}, writers out of order ${report.outOfOrder}; ` +
        `slowest save ${Math.max(...results.map((r) => r.slowestMs))} ms`,
    );
    expect(report).toMatchObject({ lost: 0, duplicated: 0, split: 0, outOfOrder: 0 });
    // Keyed saves: acknowledged, or (rarely) answered unavailable when their write went
    // unanswered, the same messages sit at their cursors and their key has meanwhile left the
    // window of remembered keys: stored or not, it cannot be told apart from another writer's
    // identical batch, so the store fails it rather than risk storing it twice. Never refused.
    expect(keyedFailed).toBeLessThanOrEqual(3);
    for (const r of keyed) {
      expect(r.refused).toBe(0);
      expect(new Set(r.failureCodes)).toEqual(new Set(r.failed > 0 ? ['BACKEND_UNAVAILABLE'] : []));
      expect(r.acknowledged).toHaveLength(TURNS - r.failed);
    }
    // A plain save is acknowledged, or fails as unavailable (stored or not, never twice).
    expect(plain.refused).toBe(0);
    expect(new Set(plain.failureCodes)).toEqual(
      new Set(plain.failed > 0 ? ['BACKEND_UNAVAILABLE'] : []),
    );
    expect(report.present).toBeGreaterThanOrEqual(ackedTurns);
    expect(report.present).toBeLessThanOrEqual(ackedTurns + plain.failed + keyedFailed);
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
