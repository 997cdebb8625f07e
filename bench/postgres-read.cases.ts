import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { PostgresMemory } from '@agent-memory/memory/postgres';
import { ratio, type BenchResult } from './harness';
import {
  bestOfRounds,
  history,
  LARGE,
  LISTED,
  SMALL,
  TAIL,
  type PostgresBench,
} from './postgres-bench.context';

/**
 * Reading: `retrieve` of a 1k and a large session behind a snapshot (against bare pg and
 * LangChain's full load), loading the whole log, and listing the newest 50 sessions.
 */
export async function readCases(bench: PostgresBench): Promise<void> {
  const { backend, pool, bare, bareSnapshots, bareSessions, lc, results, notes } = bench;
  // retrieve
  const retrieveMs: Record<number, number> = {};
  for (const size of [SMALL, LARGE]) {
    const id = `retrieve-${size}`;
    const store = (await backend.open(id)) as PostgresMemory;
    for (let from = 0; from < size; from += 1000) await store.save(history(1000, from));
    const { tail } = await store.loadSnapshot();
    await store.saveSnapshot(
      { summary: 'they discussed the deploy script' },
      tail[size - TAIL - 1]!.cursor,
      null,
    );

    await pool.query(
      `INSERT INTO ${bare} (session_id, message) SELECT $1, m FROM unnest($2::jsonb[]) WITH ORDINALITY AS t(m, o) ORDER BY o`,
      [id, history(size).map((m) => JSON.stringify(m))],
    );
    const [{ upto }] = (
      await pool.query(
        `SELECT seq AS upto FROM ${bare} WHERE session_id = $1 ORDER BY seq OFFSET $2 LIMIT 1`,
        [id, size - TAIL - 1],
      )
    ).rows as [{ upto: string }];
    await pool.query(
      `INSERT INTO ${bareSnapshots} (session_id, upto_seq, snapshot) VALUES ($1, $2, $3)`,
      [id, upto, JSON.stringify({ summary: 'they discussed the deploy script' })],
    );

    const lcHistory = lc(id);
    for (const m of history(size)) {
      const text = m.parts[0]!.text!;
      await lcHistory.addMessage(m.role === 'user' ? new HumanMessage(text) : new AIMessage(text));
    }

    const caseName = `retrieve ${size / 1000}k + snapshot`;
    const [ours, bareRetrieve, full] = (await bestOfRounds([
      { caseName, subject: 'agent-memory', fn: () => store.retrieve() },
      {
        caseName,
        subject: 'bare pg',
        fn: async () => {
          const snap = await pool.query(
            `SELECT upto_seq, snapshot FROM ${bareSnapshots} WHERE session_id = $1`,
            [id],
          );
          const after = (snap.rows[0] as { upto_seq: string } | undefined)?.upto_seq ?? 0;
          return pool.query(
            `SELECT message FROM ${bare} WHERE session_id = $1 AND seq > $2 ORDER BY seq`,
            [id, after],
          );
        },
      },
      {
        caseName: `retrieve ${size / 1000}k (full history)`,
        subject: 'LangChain',
        fn: () => lcHistory.getMessages(),
      },
    ])) as [BenchResult, BenchResult, BenchResult];
    results.push(ours, bareRetrieve, full);

    // The whole log, as `entries()` reads it: every row decoded into an entry.
    const loadCase = `load all of ${size / 1000}k messages`;
    const [oursLoad, bareLoad] = (await bestOfRounds([
      { caseName: loadCase, subject: 'agent-memory entries()', fn: () => store.entries() },
      {
        caseName: loadCase,
        subject: 'bare pg',
        fn: () =>
          pool.query({
            name: 'bare_load',
            text: `SELECT seq, message, created_at FROM ${bare} WHERE session_id = $1 ORDER BY seq`,
            values: [id],
          }),
      },
    ])) as [BenchResult, BenchResult];
    results.push(oursLoad, bareLoad);
    notes.push(
      `${loadCase}: agent-memory takes ${ratio(oursLoad.meanMs, bareLoad.meanMs)} the time of bare pg ` +
        `(target ≤ 1.15×: ${oursLoad.meanMs <= 1.15 * bareLoad.meanMs ? 'met' : 'NOT met'}).`,
    );
    retrieveMs[size] = ours.meanMs;
    notes.push(
      `retrieve ${size / 1000}k: agent-memory takes ${ratio(ours.meanMs, bareRetrieve.meanMs)} the time of bare pg; ` +
        `it is ${ratio(full.meanMs, ours.meanMs)} faster than LangChain's full load` +
        (size === LARGE
          ? ` (target ≥ 20×: ${full.meanMs >= 20 * ours.meanMs ? 'met' : 'NOT met'})`
          : ''),
    );
  }
  // Listing: the newest 50 of LISTED sessions (rows written directly, as a long-running
  // deployment has them), against the same query on the bare sessions table and its index.
  const listCase = `newest 50 of ${LISTED.toLocaleString('en-US')} sessions`;
  for (const table of [backend.tables.sessions, bareSessions]) {
    await pool.query(
      `INSERT INTO ${table} (session_id, saved, updated_at)
         SELECT 'listed-' || i, 10, now() - i * interval '1 second' FROM generate_series(1, $1) AS i`,
      [LISTED],
    );
    await pool.query(`ANALYZE ${table}`);
  }
  const [oursList, bareList] = (await bestOfRounds([
    {
      caseName: listCase,
      subject: 'agent-memory list()',
      fn: () => backend.list({ limit: 50 }),
    },
    {
      caseName: listCase,
      subject: 'bare pg (indexed)',
      fn: () =>
        pool.query({
          name: 'bare_list',
          text: `SELECT session_id, saved, updated_at FROM ${bareSessions}
              ORDER BY updated_at DESC, session_id LIMIT 51`,
          values: [],
        }),
    },
  ])) as [BenchResult, BenchResult];
  results.push(oursList, bareList);
  notes.push(
    `${listCase}: agent-memory takes ${ratio(oursList.meanMs, bareList.meanMs)} the time of the ` +
      `indexed bare query (target ≤ 1.30×: ${oursList.meanMs <= 1.3 * bareList.meanMs ? 'met' : 'NOT met'}).`,
  );
  notes.push(
    `retrieve ${LARGE / 1000}k takes ${ratio(retrieveMs[LARGE]!, retrieveMs[SMALL]!)} the time of retrieve 1k ` +
      `(target ≤ 2×: ${retrieveMs[LARGE]! <= 2 * retrieveMs[SMALL]! ? 'met' : 'NOT met'}): only the ${TAIL} rows after the snapshot are read.`,
    `LangChain's table has no index on session_id (as it creates it) and holds only this bench's sessions.`,
  );
}
