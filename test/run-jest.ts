/**
 * `npm run test:jest`: makes sure PostgreSQL and NATS are reachable (the machine's own services,
 * the URLs in TEST_DATABASE_URL / TEST_NATS_URL, or throwaway servers started here), runs jest with
 * its JSON report, prints `N passed, N failed`, and stops what it started. It never skips a suite
 * for want of a service: it fails when it can start none.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  isPortOpen,
  startThrowawayNats,
  startThrowawayPostgres,
  type ThrowawayServer,
} from './support/services';

const REPORT = join(__dirname, '..', '.jest-results.json');

/** The script that installs pgvector for PostgreSQL 15: the repository's, unless one is named. */
const INSTALL_PGVECTOR_SCRIPT =
  process.env.INSTALL_PGVECTOR_SCRIPT ?? join(__dirname, '..', 'scripts', 'install-pgvector.sh');

/**
 * pgvector for the recall tests: the script is idempotent (it returns at once when the extension
 * is installed) and needs root to build it; `flock` keeps parallel runs from building it twice.
 */
function ensurePgvector(): void {
  const run = spawnSync('flock', ['/tmp/apt.lock', 'bash', INSTALL_PGVECTOR_SCRIPT], {
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    console.log(
      `pgvector: ${INSTALL_PGVECTOR_SCRIPT} failed (${run.status}): ${(run.stderr ?? '').trim()}; the pgvector tests need the extension`,
    );
  }
}

async function ensureServices(): Promise<ThrowawayServer[]> {
  const started: ThrowawayServer[] = [];
  ensurePgvector();
  if (!process.env.TEST_DATABASE_URL && !(await isPortOpen(5432))) {
    const pg = await startThrowawayPostgres();
    started.push(pg);
    process.env.TEST_DATABASE_URL = pg.url;
    console.log(`PostgreSQL was not running on 5432: started a throwaway one at ${pg.url}`);
  }
  if (!process.env.TEST_NATS_URL && !(await isPortOpen(4222))) {
    const nats = await startThrowawayNats();
    started.push(nats);
    process.env.TEST_NATS_URL = nats.url;
    console.log(`NATS was not running on 4222: started a throwaway one at ${nats.url}`);
  }
  return started;
}

async function main(): Promise<number> {
  const started = await ensureServices();
  try {
    const jest = spawnSync(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--json',
        `--outputFile=${REPORT}`,
        ...process.argv.slice(2),
      ],
      { stdio: 'inherit', env: process.env },
    );
    const report = JSON.parse(readFileSync(REPORT, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      numRuntimeErrorTestSuites: number;
    };
    const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
    console.log(`${report.numPassedTests} passed, ${failed} failed`);
    return jest.status ?? 1;
  } finally {
    for (const server of started) await server.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
