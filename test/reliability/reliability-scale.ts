/**
 * How big the reliability runs are: small inside `npm test` (CI), full with
 * `npm run test:reliability` (`RELIABILITY_FULL=1`).
 */
export const FULL = process.env.RELIABILITY_FULL === '1';

/** Seconds each load scenario runs. */
export const LOAD_DURATION_S = FULL ? 10 : 1;

/** Concurrent connections of each load scenario. */
export const LOAD_CONNECTIONS = FULL ? 16 : 4;

/** Property runs per fuzzed input kind. */
export const FUZZ_RUNS = FULL ? 2000 : 150;

/** Sessions of the "many sessions" scenarios (each is seeded before the read run). */
export const MANY_SESSIONS = FULL ? 1000 : 200;
