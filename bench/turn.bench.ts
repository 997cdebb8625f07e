/**
 * The turn as users run it, side by side on PostgreSQL, NATS and JSON files: 500 turns of two
 * messages on one session (a fresh session per subject and round) through
 *
 * - `MemoryService.runTurn` in a Nest testing module (`MemoryModule.forRoot({ backend })`): the
 *   retrieve of the history, the turn function (answers at once), the keyed save;
 * - the admin API's append, `POST /api/sessions/:id/messages` with an `Idempotency-Key`, against
 *   the api app started in this process on port 0 (its own backend, as in production);
 * - what runTurn's save is: `backend.open(id)` then `save(messages, { idempotencyKey })`;
 * - `store.save(messages)` on a store opened once;
 * - the bare statement: PostgreSQL, a two-row INSERT that also upserts a session row (as the
 *   postgres suite's "bare pg + session row"); JSON files, read + append + write-temp + fsync +
 *   rename of the whole file; NATS, one `kv.update` of the whole log with the last revision.
 *
 * The subjects take turns turn by turn (one turn of each, then the next), so all see the same load
 * on a shared machine; `ROUNDS` rounds, each subject keeping its best mean and its best p50. The
 * store's subjects and the application's (runTurn, the API: each queues a compaction check in the
 * background after a turn) are measured apart, each group with a bare write of its own, so that
 * the background work does not land on the store's saves.
 * Everything it creates (a schema, a bucket, a folder) is removed afterwards.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import {
  MemoryModule,
  MemoryService,
  assistantMessage,
  jsonFileBackend,
  userMessage,
  type MemoryBackend,
  type Message,
} from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { startApiServer } from '../apps/api/src/api.server';
import { adminRequest } from '../test/support/admin-request';
import { bareTurnTables } from './bare-postgres';
import { bareSave } from './jsonfile.bench';
import { benchSize } from './bench-size';
import { measureInterleaved, ratio, type BenchResult, type BenchSuite } from './harness';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
/** Turns per subject and round (BENCH_TURNS; the tests run a few). */
const TURNS = benchSize(500, 4, 'BENCH_TURNS');
/** Rounds per subject (BENCH_TURN_ROUNDS). */
const ROUNDS = benchSize(3, 1, 'BENCH_TURN_ROUNDS');
/** The storages to run, comma-separated (BENCH_TURN_STORAGES): `postgres`, `nats`, `jsonfile`. */
const STORAGES = (process.env.BENCH_TURN_STORAGES ?? 'postgres,nats,jsonfile').split(',');
const ADMIN_TOKEN = `bench-${randomUUID()}`;

/** A PostgreSQL runTurn-style save should take at most these times the bare statement. */
const PG_TARGET = { p50: 1.15, mean: 1.2 };

const turn = (i: number): Message[] => [
  userMessage(`question ${i}: what does the deploy script do when the health check fails?`),
  assistantMessage(`answer ${i}: it rolls back to the previous release and pages the on-call.`),
];

/** One storage the suite compares on: the backend, the API's settings, and the bare write. */
interface Target {
  name: string;
  backend: MemoryBackend;
  /** The api app's environment for the same storage. */
  apiEnv: Record<string, string>;
  /** What the bare statement is, for the table. */
  bareName: string;
  /** A bare writer of a fresh session: appends one turn per call. */
  bare(session: string): Promise<(messages: Message[]) => Promise<unknown>>;
  cleanup(): Promise<void>;
}

async function postgresTarget(): Promise<Target> {
  const schema = `bench_turn_${process.pid}_${Date.now().toString(36)}`;
  const table = `${schema}.conversation_memory`;
  const backend = await postgresBackend({ url: DATABASE_URL, table });
  const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
  const bare = bareTurnTables(pool, schema);
  await bare.create();
  return {
    name: 'PostgreSQL',
    backend,
    apiEnv: { MEMORY_BACKEND: 'postgres', DATABASE_URL, MEMORY_PG_TABLE: table },
    bareName: 'bare INSERT + session row upsert',
    async bare(session) {
      return ([q, a]) => bare.insert(session, [q!, a!]);
    },
    async cleanup() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

async function natsTarget(): Promise<Target> {
  const bucket = `bench_turn_${process.pid}_${Date.now().toString(36)}`;
  const backend = await natsBackend({ servers: NATS_URL, bucket });
  return {
    name: 'NATS',
    backend,
    apiEnv: { MEMORY_BACKEND: 'nats', NATS_URL, MEMORY_NATS_BUCKET: bucket },
    bareName: 'bare kv.update with revision',
    async bare(session) {
      const key = `bare-${session}`;
      const log: Message[] = [];
      let revision = await backend.kv.create(key, JSON.stringify(log));
      return async (messages) => {
        log.push(...messages);
        revision = await backend.kv.update(key, JSON.stringify(log), revision);
      };
    },
    async cleanup() {
      await backend.kv.destroy().catch(() => undefined);
    },
  };
}

async function jsonFileTarget(): Promise<Target> {
  const root = await mkdtemp(join(tmpdir(), 'bench-turn-'));
  const dir = join(root, 'sessions');
  const bareDir = await mkdtemp(join(root, 'bare-'));
  return {
    name: 'JSON files',
    backend: jsonFileBackend({ dir }),
    apiEnv: { MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: dir },
    bareName: 'bare write-temp + fsync + rename',
    async bare(session) {
      const path = join(bareDir, `${session}.json`);
      await writeFile(path, '[]');
      return (messages) => bareSave(path, messages);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The subjects of one target, each a fresh session's turn function for a round. */
interface Subject {
  label: string;
  prepare(session: string): Promise<(i: number) => Promise<unknown>>;
}

/** The bare write, on a fresh session per round. */
function bareSubject(target: Target): Subject {
  return {
    label: target.bareName,
    prepare: async (session) => {
      const write = await target.bare(session);
      return (i) => write(turn(i));
    },
  };
}

/**
 * The application's paths, which queue a compaction check after each turn (in the background, in
 * this process): measured apart from the store's, so that this work lands on neither.
 */
function appSubjects(
  target: Target,
  memory: MemoryService,
  request: ReturnType<typeof adminRequest>,
): Subject[] {
  return [
    {
      label: 'MemoryService.runTurn (retrieve + turn + keyed save)',
      prepare: async (session) => (i) =>
        memory.runTurn(session, turn(i)[0]!, async () => ({
          answer: i,
          messages: [turn(i)[1]!],
        })),
    },
    {
      label: 'admin API append, Idempotency-Key',
      prepare: async (session) => async (i) => {
        const response = await request(`/api/sessions/${session}/messages`, {
          method: 'POST',
          json: { messages: turn(i) },
          headers: { 'idempotency-key': randomUUID() },
        });
        if (response.status !== 201) throw new Error(`append answered ${response.status}`);
        await response.arrayBuffer();
      },
    },
    bareSubject(target),
  ];
}

/** The store's paths: what runTurn saves, a plain save on a store kept open, the bare write. */
function storeSubjects(target: Target): Subject[] {
  const { backend } = target;
  return [
    {
      label: 'open + keyed save (what runTurn saves)',
      prepare: async (session) => async (i) =>
        (await backend.open(session)).save(turn(i), { idempotencyKey: randomUUID() }),
    },
    {
      label: 'store.save',
      prepare: async (session) => {
        const store = await backend.open(session);
        return (i) => store.save(turn(i));
      },
    },
    bareSubject(target),
  ];
}

/**
 * `ROUNDS` rounds of `TURNS` turns, each subject on a fresh session of its own per round, the
 * subjects taking turns turn by turn (see `measureInterleaved`); each keeps its best mean and its
 * best p50 over the rounds.
 */
async function bestOfRounds(
  caseName: string,
  group: 'store' | 'app',
  subjects: Subject[],
): Promise<BenchResult[]> {
  const best: (BenchResult | undefined)[] = subjects.map(() => undefined);
  for (let round = 0; round < ROUNDS; round++) {
    const prepared = await Promise.all(
      subjects.map(async (subject, n) => ({
        subject: subject.label,
        run: await subject.prepare(`turn-${group}-${n}-${round}`),
      })),
    );
    const measured = await measureInterleaved(caseName, prepared, TURNS);
    for (const [n, result] of measured.entries()) {
      const p50Ms = Math.min(result.p50Ms!, best[n]?.p50Ms ?? Infinity);
      if (!best[n] || result.meanMs < best[n].meanMs) best[n] = result;
      best[n].p50Ms = p50Ms;
    }
  }
  return best as BenchResult[];
}

/** Runs one target's subjects and writes its notes: each subject against the bare write. */
async function runTarget(target: Target, results: BenchResult[], notes: string[]): Promise<void> {
  let moduleRef: TestingModule | undefined;
  const api = await startApiServer({
    env: { HOST: '127.0.0.1', PORT: '0', MEMORY_ADMIN_TOKEN: ADMIN_TOKEN, ...target.apiEnv },
    logger: false,
  });
  try {
    moduleRef = await Test.createTestingModule({
      imports: [MemoryModule.forRoot({ backend: target.backend })],
    }).compile();
    const memory = moduleRef.get(MemoryService);
    const store = await bestOfRounds(target.name, 'store', storeSubjects(target));
    const app = await bestOfRounds(
      `${target.name}, with compaction`,
      'app',
      appSubjects(target, memory, adminRequest(api.url, ADMIN_TOKEN)),
    );
    results.push(...store, ...app);
    for (const measured of [store, app]) {
      const bare = measured[measured.length - 1]!;
      const against = measured
        .slice(0, -1)
        .map(
          (r) =>
            `${r.subject} p50 ${ratio(r.p50Ms!, bare.p50Ms!)}, mean ${ratio(r.meanMs, bare.meanMs)}`,
        );
      notes.push(`${bare.case}, against the ${bare.subject}: ${against.join('; ')}.`);
    }
    if (target.name === 'PostgreSQL') {
      const [keyed, , bare] = store as [BenchResult, BenchResult, BenchResult];
      const p50 = keyed.p50Ms! / bare.p50Ms!;
      const mean = keyed.meanMs / bare.meanMs;
      notes.push(
        `PostgreSQL target for the runTurn-style save (open + keyed save): p50 ≤ ${PG_TARGET.p50}× ` +
          `(${p50.toFixed(2)}×: ${p50 <= PG_TARGET.p50 ? 'met' : 'NOT met'}), mean ≤ ${PG_TARGET.mean}× ` +
          `(${mean.toFixed(2)}×: ${mean <= PG_TARGET.mean ? 'met' : 'NOT met'}).`,
      );
    }
  } finally {
    await api.app.close();
    await target.cleanup();
    // Closing the module closes the backend (MemoryTeardown), as an app's shutdown does.
    if (moduleRef) await moduleRef.close();
    else await target.backend.close();
  }
}

export const suite: BenchSuite = {
  name: `Turn: ${TURNS} two-message turns on one session`,
  async run() {
    const results: BenchResult[] = [];
    const notes: string[] = [];
    const targets = { postgres: postgresTarget, nats: natsTarget, jsonfile: jsonFileTarget };
    for (const [storage, open] of Object.entries(targets)) {
      if (STORAGES.includes(storage)) await runTarget(await open(), results, notes);
    }
    notes.push(
      `Each subject: ${TURNS} turns on a fresh session per round, the subjects taking turns turn ` +
        `by turn; ${ROUNDS} rounds, best mean and best p50 kept.`,
    );
    return { results, notes };
  },
};
