/**
 * PostgreSQL: `PostgresMemory.save` of one turn and `retrieve` of sessions of 1k and 10k messages
 * (a snapshot covering all but the last 20), against (a) the same work in bare `pg` with minimal
 * SQL on the same table layout, (b) the previous release's save statement (counters upserted in
 * the statement, serialised on the session row, no triggers) and (c) LangChain's
 * `PostgresChatMessageHistory`, whose retrieve loads the full history (it has no snapshots); then
 * 8 writers x 100 two-message turns on one session (in this process, then as 8 processes: fresh
 * ones, and ones warmed by 1,000 saves each), against a bare multi-row INSERT, counting split
 * turns. Each comparison runs alternating rounds (3; 2 for fresh processes) and keeps each
 * subject's best. Everything lives in a schema of its own, dropped afterwards.
 */
import { closePostgresBench, createBareTables, openPostgresBench } from './postgres-bench.context';
import { contentionCases } from './postgres-contention.cases';
import { readCases } from './postgres-read.cases';
import { saveCases } from './postgres-save.cases';
import type { BenchSuite } from './harness';

export const suite: BenchSuite = {
  name: 'PostgreSQL',
  async run() {
    const bench = await openPostgresBench();
    try {
      await createBareTables(bench);
      await saveCases(bench);
      await contentionCases(bench);
      await readCases(bench);
    } finally {
      await closePostgresBench(bench);
    }
    return { results: bench.results, notes: bench.notes };
  },
};
