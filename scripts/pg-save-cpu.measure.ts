/**
 * What a PostgreSQL save costs in CPU, apart from the host's load (docs/benchmarks.md, "The
 * turn"): the CPU time of this process and of the PostgreSQL backends serving it, per save, for
 *
 * - the bare statement of `npm run bench turn` (a two-row INSERT that upserts a session row);
 * - `backend.open(id)` then `save(turn, { idempotencyKey })` (what `MemoryService.runTurn` saves);
 * - `store.save(turn)` on a store kept open.
 *
 *   node -r @swc-node/register scripts/pg-save-cpu.measure.ts [saves] [rounds]
 *
 * Each subject runs `saves` saves in a row (after 200 untimed ones), the subjects one after
 * another, `rounds` times. This process's time is `process.cpuUsage()`; the backends' is the
 * user + system time in `/proc/<pid>/stat` of the connections named `agent-memory-cpu` (so
 * PostgreSQL must run on this host), in clock ticks (10 ms: many saves are needed). Wall time
 * under load grows with CPU time, so these ratios are what a busy host's ratios tend to.
 * TEST_DATABASE_URL overrides the database; the schema it creates is dropped afterwards.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { bareTurnTables } from '../bench/bare-postgres';

const SAVES = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 3);
const APP = 'agent-memory-cpu';
const BASE = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const URL = `${BASE}${BASE.includes('?') ? '&' : '?'}application_name=${APP}`;
/** Linux clock ticks per second (`getconf CLK_TCK`), as `/proc/<pid>/stat` counts. */
const TICKS_PER_S = 100;

const turn = (i: number): [Message, Message] => [
  userMessage(`question ${i}: what does the deploy script do when the health check fails?`),
  assistantMessage(`answer ${i}: it rolls back to the previous release and pages the on-call.`),
];

/** CPU microseconds so far of each backend serving this script, by pid. */
async function backendCpuUs(pool: Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [APP],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_S);
  }
  return cpu;
}

function grown(before: Map<number, number>, after: Map<number, number>): number {
  let us = 0;
  for (const [pid, now] of after) us += now - (before.get(pid) ?? 0);
  return us;
}

async function main(): Promise<void> {
  const schema = `cpu_measure_${process.pid}`;
  const backend = await postgresBackend({ url: URL, table: `${schema}.conversation_memory` });
  const pool = new Pool({ connectionString: URL, max: 1, idleTimeoutMillis: 0 });
  const bare = bareTurnTables(pool, schema);
  try {
    await bare.create();
    const store = await backend.open('plain');
    const subjects: [string, (i: number) => Promise<unknown>][] = [
      ['bare INSERT + session row upsert', (i) => bare.insert('bare', turn(i))],
      [
        'open + keyed save',
        async (i) => (await backend.open('keyed')).save(turn(i), { idempotencyKey: randomUUID() }),
      ],
      ['store.save', (i) => store.save(turn(i))],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, save] of subjects) {
        for (let i = 0; i < 200; i++) await save(i);
        const backendsBefore = await backendCpuUs(pool);
        const started = process.cpuUsage();
        for (let i = 0; i < SAVES; i++) await save(i);
        const own = process.cpuUsage(started);
        const backends = grown(backendsBefore, await backendCpuUs(pool));
        const node = (own.user + own.system) / SAVES;
        const pg = backends / SAVES;
        console.log(
          `round ${round}, ${name}: node ${node.toFixed(0)} µs, PostgreSQL ${pg.toFixed(0)} µs, ` +
            `together ${(node + pg).toFixed(0)} µs per save`,
        );
      }
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    await backend.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
