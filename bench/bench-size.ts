/**
 * Quick mode, read here and nowhere else: `BENCH_QUICK=1` makes every suite run on small data
 * for a few samples, so that `test/benchmarks.spec.ts` can check in seconds that each suite still
 * runs and prints its table. Its figures mean nothing; a full run (no `BENCH_QUICK`) measures
 * exactly what it did before.
 */

/** Whether this run is a quick one (`BENCH_QUICK=1`). */
export const QUICK = process.env.BENCH_QUICK === '1';

/** Time sampled per tinybench case in quick mode, in milliseconds (BENCH_TIME_MS overrides). */
export const QUICK_TIME_MS = 10;

/** Most timed iterations of one case in quick mode (tinybench's, measureEach's, and so on). */
export const QUICK_ITERATIONS = 3;

/**
 * A size for a suite: `full` in a full run, `quick` in quick mode. When `envName` is set in the
 * environment its number wins in both modes (the suites' own variables keep working).
 */
export function benchSize(full: number, quick: number, envName?: string): number {
  const fromEnv = envName === undefined ? undefined : process.env[envName];
  if (fromEnv !== undefined && fromEnv !== '') {
    const value = Number(fromEnv);
    if (!Number.isFinite(value) || value <= 0) {
      throw new Error(`${envName} must be a positive number, got "${fromEnv}"`);
    }
    return value;
  }
  return QUICK ? quick : full;
}

/** A count of iterations: `full`, or at most {@link QUICK_ITERATIONS} in quick mode. */
export function benchIterations(full: number): number {
  return QUICK ? Math.min(full, QUICK_ITERATIONS) : full;
}
