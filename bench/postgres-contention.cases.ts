import { join } from 'node:path';
import { assistantMessage, userMessage } from '@agent-memory/memory';
import type { PostgresMemory } from '@agent-memory/memory/postgres';
import { runTogether, startScript } from '../test/support/child-script';
import { QUICK } from './bench-size';
import { ratio, type BenchResult } from './harness';
import {
  DATABASE_URL,
  ROUNDS,
  TURNS,
  WARMUP,
  WRITERS,
  turn,
  type PostgresBench,
} from './postgres-bench.context';

/** Runs `WRITERS` loops of `TURNS` saves at once and returns the wall time in milliseconds. */
async function contended(
  save: (writer: number, turn: number) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let t = 0; t < TURNS; t++) await save(w, t);
    }),
  );
  return performance.now() - started;
}

/** Turns (`wN-qT` then `wN-aT`) whose two messages are not next to each other in `texts`. */
function splitTurns(texts: readonly string[]): number {
  let split = 0;
  for (const [i, text] of texts.entries()) {
    if (text.includes('-q') && texts[i + 1] !== text.replace('-q', '-a')) split++;
  }
  return split;
}

/**
 * Writers of one session at once: `WRITERS` x `TURNS` turns in this process (agent-memory, the
 * previous release's save, a bare multi-row INSERT), then as `WRITERS` processes, fresh and
 * warmed; counts the turns whose two messages were split apart.
 */
export async function contentionCases(bench: PostgresBench): Promise<void> {
  const { backend, pool, schema, bare, previousSave, results, notes } = bench;
  // 8 writers x 100 turns on one session
  const contentionCase = `${WRITERS} writers x ${TURNS} turns, one session`;
  const contentionStore = (await backend.open('contention-warmup')) as PostgresMemory;
  await contentionStore.save(turn(0));
  const best = { ours: Infinity, previous: Infinity, bare: Infinity };
  const splits = { ours: 0, previous: 0, bare: 0 };
  const textsOf = async (session: string) =>
    (
      (
        await pool.query(
          `SELECT message->'parts'->0->>'text' AS text FROM ${bare} WHERE session_id = $1 ORDER BY seq`,
          [session],
        )
      ).rows as { text: string }[]
    ).map((row) => row.text);
  const says = (w: number, t: number, kind: 'q' | 'a') =>
    kind === 'q' ? userMessage(`w${w}-q${t}`) : assistantMessage(`w${w}-a${t}`);
  for (let round = 0; round < ROUNDS; round++) {
    const session = `contention-${round}`;
    const memory = (await backend.open(session)) as PostgresMemory;
    best.ours = Math.min(
      best.ours,
      await contended((w, t) => memory.save([says(w, t, 'q'), says(w, t, 'a')])),
    );
    const tail = (await memory.loadSnapshot()).tail;
    splits.ours = Math.max(splits.ours, splitTurns(tail.map((e) => e.message.parts[0]!.text!)));

    const prevSession = `contention-previous-${round}`;
    best.previous = Math.min(
      best.previous,
      await contended((w, t) => previousSave(prevSession, [says(w, t, 'q'), says(w, t, 'a')])),
    );
    splits.previous = Math.max(splits.previous, splitTurns(await textsOf(prevSession)));

    const bareSession = `contention-bare-${round}`;
    best.bare = Math.min(
      best.bare,
      await contended((w, t) =>
        pool.query(`INSERT INTO ${bare} (session_id, message) VALUES ($1, $2), ($1, $3)`, [
          bareSession,
          JSON.stringify(says(w, t, 'q')),
          JSON.stringify(says(w, t, 'a')),
        ]),
      ),
    );
    splits.bare = Math.max(splits.bare, splitTurns(await textsOf(bareSession)));
  }
  const asResult = (subject: string, ms: number): BenchResult => ({
    case: contentionCase,
    subject,
    opsPerSec: (WRITERS * TURNS * 1000) / ms,
    meanMs: ms / (WRITERS * TURNS),
  });
  results.push(
    asResult(`agent-memory (${splits.ours} split)`, best.ours),
    asResult(`previous release (${splits.previous} split)`, best.previous),
    asResult(`bare multi-row INSERT (${splits.bare} split)`, best.bare),
  );

  // The same across processes: no group commit there, only the advisory lock. Measured on
  // fresh processes, and on processes that first made WARMUP saves each (steady state).
  const acrossProcesses = async (mode: 'ours' | 'bare', session: string, warmup: number) => {
    const runs = await runTogether(
      Array.from({ length: WRITERS }, (_, w) =>
        startScript<{ ms: number }>(join(__dirname, 'pg-contention-writer.script.ts'), [
          DATABASE_URL,
          mode,
          mode === 'ours' ? `${schema}.conversation_memory` : bare,
          session,
          String(w),
          String(TURNS),
          String(warmup),
        ]),
      ),
    );
    return Math.max(...runs.map((run) => run.ms));
  };
  for (const { label, warmup, rounds } of [
    { label: 'fresh', warmup: 0, rounds: QUICK ? 1 : 2 },
    { label: `after ${WARMUP} saves each`, warmup: WARMUP, rounds: ROUNDS },
  ]) {
    const processCase = `${WRITERS} processes x ${TURNS} turns, one session, ${label}`;
    const procBest = { ours: Infinity, bare: Infinity };
    const procSplits = { ours: 0, bare: 0 };
    for (let round = 0; round < rounds; round++) {
      const session = `processes-${warmup}-${round}`;
      procBest.ours = Math.min(procBest.ours, await acrossProcesses('ours', session, warmup));
      const tail = (await (await backend.open(session)).loadSnapshot()).tail;
      procSplits.ours = Math.max(
        procSplits.ours,
        splitTurns(tail.map((e) => e.message.parts[0]!.text!)),
      );
      const bareSession = `processes-bare-${warmup}-${round}`;
      procBest.bare = Math.min(procBest.bare, await acrossProcesses('bare', bareSession, warmup));
      procSplits.bare = Math.max(procSplits.bare, splitTurns(await textsOf(bareSession)));
    }
    results.push(
      {
        ...asResult(`agent-memory (${procSplits.ours} split)`, procBest.ours),
        case: processCase,
      },
      {
        ...asResult(`bare multi-row INSERT (${procSplits.bare} split)`, procBest.bare),
        case: processCase,
      },
    );
    const target =
      warmup > 0
        ? `target ≤ 1.40× with 0 split: ${procSplits.ours === 0 && procBest.ours <= 1.4 * procBest.bare ? 'met' : 'NOT met'}`
        : 'the first saves of a fresh process include compiling the save path';
    notes.push(
      `${processCase}: agent-memory ${procBest.ours.toFixed(0)} ms with ${procSplits.ours} split, ` +
        `${ratio(procBest.ours, procBest.bare)} the time of a bare multi-row INSERT ` +
        `(${procBest.bare.toFixed(0)} ms, ${procSplits.bare} split; ${target}); ` +
        `wall time from release to the last writer's last save, best of ${rounds} rounds.`,
    );
  }
  notes.push(
    `${contentionCase}: agent-memory ${best.ours.toFixed(0)} ms with ${splits.ours} of ` +
      `${WRITERS * TURNS} turns split, ${ratio(best.ours, best.bare)} the time of a bare multi-row ` +
      `INSERT (${best.bare.toFixed(0)} ms, ${splits.bare} split; target ≤ 1.40× with 0 split: ` +
      `${splits.ours === 0 && best.ours <= 1.4 * best.bare ? 'met' : 'NOT met'}); the previous ` +
      `release's row lock: ${best.previous.toFixed(0)} ms, ${ratio(best.previous, best.bare)}. ` +
      `Mean ms is per turn (wall time / turns); the worst split count of ${ROUNDS} rounds is shown.`,
  );
}
