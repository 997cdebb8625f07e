/**
 * `npm run bench turn`, briefly (a few turns, one round): every subject runs on every storage,
 * and the suite prints what it compares. The figures themselves are in docs/benchmarks.md.
 */
import type { BenchSuite } from '../bench/harness';

describe('the turn benchmark', () => {
  it('measures every subject on PostgreSQL, NATS and JSON files against the bare write', async () => {
    process.env.BENCH_TURNS = '4';
    process.env.BENCH_TURN_ROUNDS = '1';
    try {
      const { suite } = (await import('../bench/turn.bench')) as { suite: BenchSuite };
      const { results, notes } = await suite.run();
      expect(results.map((r) => `${r.case}: ${r.subject}`)).toEqual(
        ['PostgreSQL', 'NATS', 'JSON files'].flatMap((storage) =>
          [
            'MemoryService.runTurn (retrieve + turn + keyed save)',
            'admin API append, Idempotency-Key',
            'open + keyed save (what runTurn saves)',
            'store.save',
            expect.stringMatching(/^bare /),
          ].map((subject) =>
            typeof subject === 'string' ? `${storage}: ${subject}` : expect.anything(),
          ),
        ),
      );
      for (const result of results) {
        expect(result.meanMs).toBeGreaterThan(0);
        expect(result.p50Ms).toBeGreaterThan(0);
      }
      expect(notes).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^PostgreSQL target for the runTurn-style save/),
        ]),
      );
    } finally {
      delete process.env.BENCH_TURNS;
      delete process.env.BENCH_TURN_ROUNDS;
    }
  }, 120_000);
});
