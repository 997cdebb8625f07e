/**
 * NATS JetStream KV, each case side by side with a bare baseline in the same run:
 * - `NatsMemory.save` of one turn against a bare KV loop doing the same append (get, parse, push,
 *   stringify, update with the revision read, retry on a lost race), on sessions of ~100 and
 *   ~1,000 messages, spread over a pool of sessions so that they grow little while measured;
 * - 8 writers x 100 two-message turns on one session, in one process and in 8 processes, against
 *   the bare retry loop (refused saves counted);
 * - the newest 50 of 10,000 sessions (and of 100,000 with BENCH_NATS_100K=1) against a bare
 *   headers-only walk of the bucket's keys, and against reading every session (the old list).
 */
import { join } from 'node:path';
import {
  ConcurrentUpdateError,
  assistantMessage,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import {
  natsBackend,
  natsDriver,
  type NatsBackend,
  type NatsMemory,
} from '@agent-memory/memory/nats';
import type { KV } from 'nats';
import { listByReadingEach } from '../libs/memory/src/core/session-list';
import { backendSpec } from '../test/conformance/backends';
import { runTogether, startScript, type ScriptRun } from '../test/support/child-script';
import {
  STORE_PROCESS_SCRIPT,
  storeProcessArgs,
  type TurnWriterResult,
} from '../test/support/store-process';
import { benchIterations, benchSize } from './bench-size';
import { measure, measureEach, ratio, type BenchResult, type BenchSuite } from './harness';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

function history(count: number): Message[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? userMessage(`question ${i}: what does the deploy script do when the health check fails?`)
      : assistantMessage(
          `answer ${i}: it rolls back to the previous release and pages the on-call.`,
        ),
  );
}

const turn = (i: number): Message[] => [
  userMessage(`new question ${i}`),
  assistantMessage(`new answer ${i}`),
];

/** The same append done by hand on the KV (a plain session is a JSON array): what a minimal correct client would do. */
async function bareAppend(kv: KV, key: string, messages: Message[]): Promise<void> {
  for (;;) {
    const entry = await kv.get(key);
    const log = JSON.parse(new TextDecoder().decode(entry!.value)) as Message[];
    log.push(...messages);
    try {
      await kv.update(key, JSON.stringify(log), entry!.revision);
      return;
    } catch (error) {
      if (!/wrong last sequence/i.test((error as Error).message)) throw error;
    }
  }
}

async function seed(
  backend: NatsBackend,
  prefix: string,
  sessions: number,
  size: number,
): Promise<string[]> {
  const ids = Array.from({ length: sessions }, (_, i) => `${prefix}-${i}`);
  const messages = history(size);
  for (const id of ids) await (await backend.open(id)).save(messages);
  return ids;
}

const WRITERS = 8;
const TURNS = benchSize(100, 5);

/** One bare writer in this process: the minimal correct append loop on a plain JSON array. */
async function bareWriter(kv: KV, key: string, writer: number): Promise<number> {
  let retries = 0;
  for (let i = 0; i < TURNS; i++) {
    const turn = [userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)];
    for (;;) {
      const entry = await kv.get(key);
      const log = entry && entry.length > 0 ? (JSON.parse(entry.string()) as unknown[]) : [];
      log.push(...turn);
      try {
        if (entry) await kv.update(key, JSON.stringify(log), entry.revision);
        else await kv.create(key, JSON.stringify(log));
        break;
      } catch (error) {
        if (!/wrong last sequence|key exists/i.test((error as Error).message)) throw error;
        retries++;
      }
    }
  }
  return retries;
}

/** One writer through agent-memory in this process; counts refused saves (none expected). */
async function oursWriter(backend: NatsBackend, key: string, writer: number): Promise<number> {
  const memory = await backend.open(key);
  let refused = 0;
  for (let i = 0; i < TURNS; i++) {
    try {
      await memory.save([userMessage(`w${writer}-q${i}`), assistantMessage(`w${writer}-a${i}`)]);
    } catch (error) {
      if (!(error instanceof ConcurrentUpdateError)) throw error;
      refused++;
    }
  }
  return refused;
}

/** Runs `WRITERS` processes of `script` on one session; returns the wall time and their results. */
async function processes<T>(
  start: (writer: number) => ScriptRun<T>,
): Promise<{ ms: number; results: T[] }> {
  const runs = Array.from({ length: WRITERS }, (_, w) => start(w));
  await Promise.all(runs.map((run) => run.ready));
  const started = performance.now();
  const results = await runTogether(runs);
  return { ms: performance.now() - started, results };
}

/** Seeds `count` small sessions as plain arrays, 64 puts in flight at a time; returns the time taken. */
async function seedSessions(kv: KV, prefix: string, from: number, count: number): Promise<number> {
  const started = performance.now();
  const value = JSON.stringify([userMessage('hello'), assistantMessage('hi, how can I help?')]);
  for (let i = from; i < from + count; i += 64) {
    const batch: Promise<number>[] = [];
    for (let j = i; j < Math.min(from + count, i + 64); j++)
      batch.push(kv.put(`${prefix}-${j}`, value));
    await Promise.all(batch);
  }
  return performance.now() - started;
}

/** The bare baseline of a list: every key of the bucket, from a headers-only walk. */
async function headersOnlyWalk(kv: KV): Promise<number> {
  let keys = 0;
  for await (const _key of await kv.keys()) keys++;
  return keys;
}

async function contentionCases(backend: NatsBackend, results: BenchResult[], notes: string[]) {
  const caseName = `${WRITERS} writers x ${TURNS} turns, one session`;
  let run = 0;
  let refused = 0;
  const ours = await measureEach(
    `${caseName}, one process`,
    'agent-memory',
    async () => `contend-ours-${++run}`,
    async (key) => {
      const counts = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) => oursWriter(backend, key, w)),
      );
      refused += counts.reduce((a, b) => a + b, 0);
    },
    3,
  );
  let bareRetries = 0;
  const bare = await measureEach(
    `${caseName}, one process`,
    'bare KV get+update retry loop',
    async () => `contend-bare-${++run}`,
    async (key) => {
      const counts = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) => bareWriter(backend.kv, key, w)),
      );
      bareRetries += counts.reduce((a, b) => a + b, 0);
    },
    3,
  );
  results.push(ours, bare);
  notes.push(
    `${caseName}, one process: agent-memory ${ratio(ours.opsPerSec, bare.opsPerSec)} the bare loop ` +
      `(${(ours.meanMs / 1000).toFixed(2)} s vs ${(bare.meanMs / 1000).toFixed(2)} s a run); ` +
      `refused ${refused} of ${benchIterations(3) * WRITERS * TURNS} saves; the bare loop retried ${bareRetries} times`,
  );

  // Each turn saved once, refusals counted (the store-process `turn-writer` role).
  const oursProcs = await processes((w) =>
    startScript<TurnWriterResult>(
      STORE_PROCESS_SCRIPT,
      storeProcessArgs(
        'turn-writer',
        backendSpec(natsDriver, {
          NATS_URL,
          MEMORY_NATS_BUCKET: backend.bucket,
          MEMORY_NATS_TIMEOUT_MS: '2000',
        }),
        'contend-procs-ours',
        w,
        TURNS,
      ),
    ),
  );
  const bareProcs = await processes((w) =>
    startScript<{ retries: number }>(join(__dirname, 'nats-bare-writer.script.ts'), [
      NATS_URL,
      backend.bucket,
      'contend-procs-bare',
      String(w),
      String(TURNS),
    ]),
  );
  const procRefused = oursProcs.results.reduce((sum, r) => sum + r.refused + r.failed, 0);
  const procRetries = bareProcs.results.reduce((sum, r) => sum + r.retries, 0);
  results.push(
    {
      case: `${caseName}, ${WRITERS} processes`,
      subject: 'agent-memory',
      opsPerSec: 1000 / oursProcs.ms,
      meanMs: oursProcs.ms,
    },
    {
      case: `${caseName}, ${WRITERS} processes`,
      subject: 'bare KV get+update retry loop',
      opsPerSec: 1000 / bareProcs.ms,
      meanMs: bareProcs.ms,
    },
  );
  notes.push(
    `${caseName}, ${WRITERS} processes (one run each): agent-memory ${ratio(bareProcs.ms, oursProcs.ms)} the ` +
      `bare loop's speed (${(oursProcs.ms / 1000).toFixed(1)} s vs ${(bareProcs.ms / 1000).toFixed(1)} s); ` +
      `refused or failed ${procRefused} of ${WRITERS * TURNS}; the bare loop retried ${procRetries} times`,
  );
}

async function listCases(results: BenchResult[], notes: string[]) {
  const sizes = [benchSize(10_000, 200), ...(process.env.BENCH_NATS_100K ? [100_000] : [])];
  const bucket = `bench_list_${process.pid}_${Date.now().toString(36)}`;
  const backend = await natsBackend({ servers: NATS_URL, bucket });
  const ourMeans: number[] = [];
  try {
    let seeded = 0;
    for (const size of sizes) {
      const seedMs = await seedSessions(backend.kv, 'session', seeded, size - seeded);
      seeded = size;
      const label = `newest 50 of ${size.toLocaleString('en-US')} sessions`;
      const ours = await measureEach(
        label,
        'agent-memory',
        async () => null,
        () => backend.list({ limit: 50 }),
        30,
      );
      const walk = await measureEach(
        label,
        'bare headers-only walk of the keys',
        async () => null,
        () => headersOnlyWalk(backend.kv),
        3,
      );
      const readEach = await measureEach(
        label,
        'reading every session (the list before)',
        async () => null,
        async () => {
          const keys: string[] = [];
          for await (const key of await backend.kv.keys()) keys.push(key);
          return listByReadingEach(keys, (id) => backend.inspect(id), { limit: 50 });
        },
        1,
      );
      results.push(ours, walk, readEach);
      ourMeans.push(ours.meanMs);
      notes.push(
        `${label} (seeded in ${(seedMs / 1000).toFixed(1)} s): agent-memory ${ours.meanMs.toFixed(1)} ms, ` +
          `${(ours.meanMs / walk.meanMs).toFixed(3)}× the time of the headers-only walk (${walk.meanMs.toFixed(0)} ms) ` +
          `and ${(ours.meanMs / readEach.meanMs).toFixed(4)}× that of reading every session (${readEach.meanMs.toFixed(0)} ms)`,
      );
    }
    if (ourMeans.length === 2) {
      notes.push(
        `newest 50: ${ourMeans[0]!.toFixed(1)} ms at 10,000 sessions, ${ourMeans[1]!.toFixed(1)} ms at 100,000 ` +
          `(${(ourMeans[1]! / ourMeans[0]!).toFixed(2)}×)`,
      );
    } else {
      notes.push(
        '100,000 sessions: set BENCH_NATS_100K=1 (seeding them takes about a minute more)',
      );
    }
  } finally {
    await backend.kv.destroy().catch(() => undefined);
    await backend.close();
  }
}

/** Messages added per session, on average, by `saves` one-turn saves spread over `pool` sessions. */
const grown = (saves: number, pool: number): string => ((2 * saves) / pool).toFixed(1);

export const suite: BenchSuite = {
  name: 'NATS JetStream KV',
  async run() {
    const bucket = `bench_${process.pid}_${Date.now().toString(36)}`;
    const backend = await natsBackend({ servers: NATS_URL, bucket });
    const results: BenchResult[] = [];
    const notes: string[] = [];
    try {
      for (const [size, pool] of [
        [100, benchSize(512, 8)],
        [1000, benchSize(64, 4)],
      ] as const) {
        const caseName = `save one turn, ~${size} messages`;
        const oursIds = await seed(backend, `ours-${size}`, pool, size);
        const bareIds = await seed(backend, `bare-${size}`, pool, size);
        const stores = await Promise.all(
          oursIds.map((id) => backend.open(id) as Promise<NatsMemory>),
        );
        const bytes = (await backend.kv.get(oursIds[0]!))!.length;

        let i = 0;
        const ours = await measure(caseName, 'agent-memory', () =>
          stores[i++ % pool]!.save(turn(i)),
        );
        let j = 0;
        const bare = await measure(caseName, 'bare KV get+update', () =>
          bareAppend(backend.kv, bareIds[j++ % pool]!, turn(j)),
        );
        results.push(ours, bare);
        notes.push(
          `~${size} messages (${Math.round(bytes / 1024)} KiB value): agent-memory ${ratio(ours.opsPerSec, bare.opsPerSec)} ` +
            `the bare loop; sessions grew by ${grown(i, pool)} and ${grown(j, pool)} messages on average ` +
            `(${pool} sessions per subject)`,
        );
      }
      notes.push(
        'agent-memory validates every message and tries the revision it last wrote first (one round trip ' +
          'when nobody else wrote); the bare loop reads before every update (two round trips).',
      );
      if (!process.env.BENCH_NATS_SKIP_CONTENTION) await contentionCases(backend, results, notes);
      await listCases(results, notes);
    } finally {
      await backend.kv.destroy().catch(() => undefined);
      await backend.close();
    }
    return { results, notes };
  },
};
