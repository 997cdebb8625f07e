/**
 * Runs the contract suite on one store's module with vitest, programmatically, and returns each
 * test's outcome. vitest is this package's own dependency: the store's project needs no runner.
 */
import { join } from 'node:path';

/** One test's outcome; `reason` for a failure (the first error's message). */
export interface ConformanceTestOutcome {
  name: string;
  state: 'passed' | 'failed' | 'skipped';
  reason?: string;
}

/** The test file, shipped next to `dist` (see its comment). */
const PACKAGE_ROOT = join(__dirname, '..', '..');
const TEST_FILE = 'runner/conformance.vitest.mjs';

/** vitest's node API is an ECMAScript module: loaded with a real `import()`. */
const importVitest = new Function('return import("vitest/node")') as () => Promise<
  typeof import('vitest/node')
>;

/** Runs the suite on the initializer `modulePath` exports by default. */
export async function runConformance(modulePath: string): Promise<ConformanceTestOutcome[]> {
  process.env.AGENT_MEMORY_CONFORMANCE_MODULE = modulePath;
  const { startVitest } = await importVitest();
  const vitest = await startVitest(
    'test',
    [],
    {
      root: PACKAGE_ROOT,
      config: false,
      include: [TEST_FILE],
      // The package itself is usually inside node_modules, which vitest leaves out by default
      // and runs natively; inlined, the test file's import() of the store goes through vitest's
      // transform (TypeScript).
      exclude: [],
      server: { deps: { inline: [/conformance\.vitest\.mjs$/] } },
      watch: false,
      testTimeout: 30_000,
      hookTimeout: 60_000,
      reporters: ['default'],
    },
    {},
  );
  try {
    const outcomes: ConformanceTestOutcome[] = [];
    for (const module of vitest.state.getTestModules()) {
      for (const error of module.errors()) {
        outcomes.push({ name: `loading ${modulePath}`, state: 'failed', reason: error.message });
      }
      for (const suite of module.children.allSuites()) {
        for (const error of suite.errors()) {
          outcomes.push({ name: suite.fullName, state: 'failed', reason: error.message });
        }
      }
      for (const test of module.children.allTests()) {
        const result = test.result();
        const state = result.state === 'pending' ? 'skipped' : result.state;
        outcomes.push({
          name: test.fullName,
          state,
          ...(result.state === 'failed' ? { reason: result.errors[0]?.message ?? 'failed' } : {}),
        });
      }
    }
    for (const error of vitest.state.getUnhandledErrors()) {
      outcomes.push({ name: 'an unhandled error', state: 'failed', reason: String(error) });
    }
    if (outcomes.length === 0) {
      outcomes.push({ name: TEST_FILE, state: 'failed', reason: 'vitest ran no test' });
    }
    return outcomes;
  } finally {
    await vitest.close();
  }
}
