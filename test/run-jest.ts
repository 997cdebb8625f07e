/**
 * `npm run test:jest`: makes sure PostgreSQL and NATS are reachable (the machine's own services,
 * the URLs in TEST_DATABASE_URL / TEST_NATS_URL, or throwaway servers started here), runs jest with
 * its JSON report, prints `N passed, N failed`, and stops what it started. It never skips a suite
 * for want of a service: it fails when it can start none.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitWithServices } from './support/ensure-services';

const REPORT = join(__dirname, '..', '.jest-results.json');

exitWithServices({ pgvector: true }, () => {
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
});
