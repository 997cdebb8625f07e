/**
 * The test runner's functions the suites register with. Jest provides them as globals; vitest only
 * with `globals: true`, so a vitest user can pass them instead (`{ runner: { describe, it, … } }`
 * from `vitest`). They are resolved once, when a `describe…Conformance` function is called.
 */

/** The runner functions the suites use (jest's and vitest's have these shapes). */
export interface ConformanceRunner {
  describe: unknown;
  it: unknown;
  expect: unknown;
  beforeAll: unknown;
  afterAll: unknown;
  beforeEach: unknown;
  afterEach: unknown;
}

/** Options every `describe…Conformance` function takes. */
export interface ConformanceRunOptions {
  /**
   * The runner's `describe`, `it`, `expect`, `beforeAll`, `afterAll`, `beforeEach` and
   * `afterEach`. Default: the globals of that name (jest; vitest with `globals: true`).
   */
  runner?: Partial<ConformanceRunner>;
}

/** Thrown when the runner's functions are neither passed nor globals. */
export class MissingTestRunnerError extends Error {
  readonly code = 'CONFORMANCE_RUNNER_MISSING';
  constructor(missing: readonly string[]) {
    super(
      `the conformance suite needs the test runner's ${missing.join(', ')}: run it under jest, ` +
        'or vitest with `globals: true`, or pass them as `{ runner: { describe, it, expect, ' +
        "beforeAll, afterAll, beforeEach, afterEach } }` (imported from 'vitest')",
    );
    this.name = 'MissingTestRunnerError';
  }
}
