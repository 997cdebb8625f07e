import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { PostgresMemory } from '@agent-memory/memory/postgres';
import { ratio, type BenchResult } from './harness';
import { bestOfRounds, SAVE_POOL, turn, type PostgresBench } from './postgres-bench.context';

/**
 * Saving one turn: agent-memory against the previous release's save statement, a bare pg INSERT
 * (with and without keeping a session row) and LangChain's one INSERT per message.
 */
export async function saveCases(bench: PostgresBench): Promise<void> {
  const { backend, pool, bare, bareSessions, lc, previousSave, results, notes } = bench;
  const saveCase = 'save one turn';
  const stores = await Promise.all(
    Array.from(
      { length: SAVE_POOL },
      (_, s) => backend.open(`save-${s}`) as Promise<PostgresMemory>,
    ),
  );
  const lcSessions = Array.from({ length: SAVE_POOL }, (_, s) => lc(`save-${s}`));
  let i = 0;
  let j = 0;
  let k = 0;
  let m = 0;
  let p = 0;
  const [oursSave, previous, bareSave, bareWithRow, lcSave] = (await bestOfRounds([
    {
      caseName: saveCase,
      subject: 'agent-memory',
      fn: () => stores[i++ % SAVE_POOL]!.save(turn(i)),
    },
    {
      caseName: saveCase,
      subject: 'previous release (row lock, no triggers)',
      fn: () => previousSave(`save-${++p % SAVE_POOL}`, turn(p)),
    },
    {
      caseName: saveCase,
      subject: 'bare pg',
      fn: () => {
        const [q, a] = turn(++j);
        return pool.query(`INSERT INTO ${bare} (session_id, message) VALUES ($1, $2), ($1, $3)`, [
          `save-${j % SAVE_POOL}`,
          JSON.stringify(q),
          JSON.stringify(a),
        ]);
      },
    },
    {
      caseName: saveCase,
      subject: 'bare pg + session row',
      fn: () => {
        const [q, a] = turn(++m);
        return pool.query(
          `WITH s AS (
               INSERT INTO ${bareSessions} AS s (session_id, saved, updated_at) VALUES ($1, 2, now())
               ON CONFLICT (session_id) DO UPDATE SET saved = s.saved + 2, updated_at = now()
             )
             INSERT INTO ${bare} (session_id, message) VALUES ($1, $2), ($1, $3)`,
          [`save-${m % SAVE_POOL}`, JSON.stringify(q), JSON.stringify(a)],
        );
      },
    },
    {
      caseName: saveCase,
      subject: 'LangChain',
      fn: () => {
        k++;
        return lcSessions[k % SAVE_POOL]!.addMessages([
          new HumanMessage(`new question ${k}`),
          new AIMessage(`new answer ${k}`),
        ]);
      },
    },
  ])) as [BenchResult, BenchResult, BenchResult, BenchResult, BenchResult];
  results.push(oursSave, previous, bareSave, bareWithRow, lcSave);
  notes.push(
    `save: agent-memory takes ${ratio(oursSave.meanMs, bareSave.meanMs)} the time of a bare pg INSERT ` +
      `(target ≤ 1.30×: ${oursSave.meanMs <= 1.3 * bareSave.meanMs ? 'met' : 'NOT met'}) and ` +
      `${ratio(oursSave.meanMs, bareWithRow.meanMs)} the time of bare pg also keeping a session row ` +
      `(upsert + indexed updated_at, as listing needs); the rest is validation and TypeORM. ` +
      `LangChain (one INSERT per message): ${ratio(lcSave.meanMs, bareSave.meanMs)} the bare INSERT.`,
    `save, against bare pg also keeping a session row: p50 ${ratio(oursSave.p50Ms!, bareWithRow.p50Ms!)} ` +
      `(${oursSave.p50Ms!.toFixed(3)} against ${bareWithRow.p50Ms!.toFixed(3)} ms; target ≤ 1.10×: ` +
      `${oursSave.p50Ms! <= 1.1 * bareWithRow.p50Ms! ? 'met' : 'NOT met'}), mean ` +
      `${ratio(oursSave.meanMs, bareWithRow.meanMs)} (target ≤ 1.15×: ` +
      `${oursSave.meanMs <= 1.15 * bareWithRow.meanMs ? 'met' : 'NOT met'}); bare INSERT p50 ` +
      `${bareSave.p50Ms!.toFixed(3)} ms.`,
    `save: agent-memory (advisory lock, counters in the statement, triggers for other writers) takes ` +
      `${ratio(oursSave.meanMs, previous.meanMs)} the time of the previous release's save statement ` +
      `(row lock, no triggers: blind to other writers).`,
  );
}
