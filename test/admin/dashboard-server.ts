/**
 * The real admin server for the dashboard's browser tests and benchmark: `node scripts/start.mjs`
 * (which builds the dashboard when its build is stale) as a child process on a free port, with
 * the dashboard URL read from what it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { adminRequest, type AdminRequest } from '../support/admin-request';

const ROOT = join(__dirname, '..', '..');

export interface DashboardServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The URL the server printed: `<url>/?token=<token>`. */
  dashboardUrl: string;
  token: string;
  /** Everything the server printed so far. */
  output(): string;
  /** `fetch` on the API with the token. */
  request: AdminRequest;
  stop(): Promise<void>;
}

/**
 * Starts the server with `env` (backend settings; no `MEMORY_ADMIN_TOKEN`, so it makes one and
 * prints the dashboard URL) and waits for that URL. `entry` is the script node runs, relative to
 * the repository: `scripts/start.mjs` (from the sources) or the built `dist/apps/api/src/main.js`.
 * @throws when the server exits or prints no URL within `timeoutMs`.
 */
export async function startDashboardServer(
  env: Record<string, string>,
  timeoutMs = 90_000,
  entry = join('scripts', 'start.mjs'),
): Promise<DashboardServer> {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  };
  delete childEnv.MEMORY_ADMIN_TOKEN;
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const printed = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server printed no dashboard URL in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/\S+\/\?token=\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
  const dashboardUrl = await printed;
  const parsed = new URL(dashboardUrl);
  const token = parsed.searchParams.get('token')!;
  const url = parsed.origin;
  return {
    url,
    dashboardUrl,
    token,
    output: () => output,
    request: adminRequest(url, token),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
