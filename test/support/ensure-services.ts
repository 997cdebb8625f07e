/**
 * The services a test run needs: PostgreSQL and NATS reachable (the machine's own, the URLs in
 * TEST_DATABASE_URL / TEST_NATS_URL, or throwaway servers started here, whose URLs are then set
 * in those variables), and pgvector when asked. Used by `test/run-jest.ts` and
 * `test/run-langgraph.ts` through {@link exitWithServices}.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  isPortOpen,
  startThrowawayNats,
  startThrowawayPostgres,
  type ThrowawayServer,
} from './services';

/** The script that installs pgvector for PostgreSQL 15: the repository's, unless one is named. */
const INSTALL_PGVECTOR_SCRIPT =
  process.env.INSTALL_PGVECTOR_SCRIPT ??
  join(__dirname, '..', '..', 'scripts', 'install-pgvector.sh');

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

/** Makes PostgreSQL and NATS reachable; returns the throwaway servers it started. */
async function ensureServices(opts: { pgvector?: boolean } = {}): Promise<ThrowawayServer[]> {
  const started: ThrowawayServer[] = [];
  if (opts.pgvector) ensurePgvector();
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

/**
 * Runs `command` (a test runner, synchronously) with the services reachable, stops the throwaway
 * servers it needed, and exits the process with the command's status (1 when anything threw).
 */
export function exitWithServices(opts: { pgvector?: boolean }, command: () => number): void {
  const run = async (): Promise<number> => {
    const started = await ensureServices(opts);
    try {
      return command();
    } finally {
      for (const server of started) await server.dispose();
    }
  };
  run().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
