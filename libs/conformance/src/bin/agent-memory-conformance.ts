#!/usr/bin/env node
/**
 * `agent-memory-conformance <module>`: runs every contract test on the store whose initializer is
 * the module's default export (TypeScript or JavaScript). Exits 0 when all pass, 1 when any
 * fails (each failure named with its reason), 2 for a usage error (no module, no initializer).
 */
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { assertMemoryBackendInitializer } from '../initializer';
import { defaultExportOf, loadModule } from '../module-loader';
import { runConformance, type ConformanceTestOutcome } from './run-vitest';

const USAGE = `usage: agent-memory-conformance <module>

Runs the @agent-memory/conformance contract suite on a store. <module> is a .ts, .js, .cjs or
.mjs file whose default export is the initializer:
  { name, createBackend(), destroyBackend?(backend), capabilities?, … }
Exit status: 0 all tests passed, 1 a test failed, 2 usage error.`;

/** A usage error: printed with the usage, exit status 2. */
class UsageError extends Error {}

async function checkModule(arg: string | undefined): Promise<string> {
  if (!arg) throw new UsageError('name the module whose default export is the initializer');
  const path = resolve(arg);
  if (!existsSync(path)) throw new UsageError(`no module at ${path}`);
  if (['.ts', '.cts', '.mts', '.tsx'].includes(extname(path))) {
    // Registered only for a TypeScript module: it hooks every later require.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('@swc-node/register');
  }
  let exports: Record<string, unknown>;
  try {
    exports = await loadModule(path);
  } catch (error) {
    throw new UsageError(`${path} could not be loaded: ${(error as Error).message}`);
  }
  try {
    assertMemoryBackendInitializer(defaultExportOf(exports), path);
  } catch (error) {
    throw new UsageError(`the default export of ${path} is ${(error as Error).message}`);
  }
  return path;
}

/** The failures, each named with the first lines of its reason, and the counts. */
function report(outcomes: ConformanceTestOutcome[]): string {
  const count = (state: ConformanceTestOutcome['state']) =>
    outcomes.filter((o) => o.state === state).length;
  const failures = outcomes
    .filter((o) => o.state === 'failed')
    .map((o) => {
      const reason = (o.reason ?? '').split('\n').slice(0, 8).join('\n    ');
      return `FAILED ${o.name}\n    ${reason}`;
    });
  // Skips are listed too: each title names the capability the store said it lacks.
  const skipped = outcomes.filter((o) => o.state === 'skipped').map((o) => `skipped ${o.name}`);
  return [
    ...(skipped.length > 0 ? ['', 'Skipped conformance tests:', ...skipped] : []),
    ...(failures.length > 0 ? ['', 'Failed conformance tests:', ...failures] : []),
    '',
    `${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`,
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let path: string;
  try {
    if (argv.length > 1) throw new UsageError(`one module, not ${argv.length}`);
    path = await checkModule(argv[0]);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`agent-memory-conformance: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  const outcomes = await runConformance(path);
  console.log(report(outcomes));
  return outcomes.some((o) => o.state === 'failed') ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
