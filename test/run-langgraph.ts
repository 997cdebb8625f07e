/**
 * `npm run test:langgraph`: LangGraph's checkpointer suite on the four stores (vitest, with
 * libs/memory/vitest.langgraph.config.mts), with PostgreSQL and NATS made reachable as for jest
 * (see `ensure-services.ts`); writes `.vitest-langgraph-results.json`, which `.ci/run` counts.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { exitWithServices } from './support/ensure-services';

const ROOT = join(__dirname, '..');

exitWithServices({}, () => {
  const vitest = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      join(ROOT, 'libs', 'memory', 'vitest.langgraph.config.mts'),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${join(ROOT, '.vitest-langgraph-results.json')}`,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit', env: process.env, cwd: ROOT },
  );
  return vitest.status ?? 1;
});
