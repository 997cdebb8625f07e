/**
 * The runner's functions as the suites call them, typed with jest's declarations (vitest's agree
 * on everything the suites use). Internal: the published declarations reachable from the package's
 * entry never name jest's types, so a vitest project type-checks without them.
 */
import { MissingTestRunnerError, type ConformanceRunner } from './runner';

/** The same functions, typed as the suites call them (jest's types; vitest's agree on what is used). */
export interface TestApi {
  describe: jest.Describe;
  it: jest.It;
  expect: jest.Expect;
  beforeAll: jest.Lifecycle;
  afterAll: jest.Lifecycle;
  beforeEach: jest.Lifecycle;
  afterEach: jest.Lifecycle;
}

const NAMES = [
  'describe',
  'it',
  'expect',
  'beforeAll',
  'afterAll',
  'beforeEach',
  'afterEach',
] as const;

/** The runner's functions: those passed, else the globals. */
export function resolveRunner(passed: Partial<ConformanceRunner> = {}): TestApi {
  const globals = globalThis as unknown as Partial<ConformanceRunner>;
  const found: Partial<Record<(typeof NAMES)[number], unknown>> = {};
  for (const name of NAMES) found[name] = passed[name] ?? globals[name];
  const missing = NAMES.filter((name) => typeof found[name] !== 'function');
  if (missing.length > 0) throw new MissingTestRunnerError(missing);
  return found as unknown as TestApi;
}
