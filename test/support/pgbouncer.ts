/**
 * A throwaway PgBouncer in transaction mode in front of the test database, for the tests of
 * running the PostgreSQL store behind a pooler. Needs the `pgbouncer` binary (Debian package
 * `pgbouncer`; PgBouncer refuses to run as root, so as root it runs as the `postgres` user).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isPortOpen } from './services';

const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

export interface PgBouncer {
  /** The same database as `target`, through the pooler. */
  url: string;
  dispose(): Promise<void>;
}

/**
 * Starts PgBouncer (transaction mode, `poolSize` server connections) in front of `target`, a
 * `postgres://user@host:port/db` URL with trust authentication.
 * @throws Error saying how to install PgBouncer when the binary is missing.
 */
export async function startPgBouncer(target: string, poolSize = 2): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(
      `PgBouncer not found at ${PGBOUNCER}: apt-get install pgbouncer (or set PGBOUNCER_BIN)`,
    );
  }
  const server = new URL(target);
  const database = server.pathname.slice(1);
  const user = decodeURIComponent(server.username) || 'postgres';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-pgbouncer-'));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      // The backend sends statement_timeout as a start-up parameter; PgBouncer must let it pass.
      'ignore_startup_parameters = extra_float_digits,statement_timeout',
      `logfile = ${join(dir, 'log')}`,
      `pidfile = ${join(dir, 'pid')}`,
      '',
    ].join('\n'),
  );
  chmodSync(config, 0o644);
  const [command, args] = isRoot
    ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, '-d', config]]
    : [PGBOUNCER, ['-d', config]];
  execFileSync(command, args as string[], { stdio: 'pipe' });
  const deadline = Date.now() + 10_000;
  while (!(await isPortOpen(port))) {
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `postgres://${user}@127.0.0.1:${port}/${database}`,
    async dispose() {
      const pidFile = join(dir, 'pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        if (pid > 0) process.kill(pid, 'SIGTERM');
        const until = Date.now() + 5000;
        while ((await isPortOpen(port)) && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
