// Builds the dashboard (apps/admin → apps/admin/dist) when its build is missing or older than its
// sources, so `npm start` on a fresh clone serves a working dashboard. `--force` always builds.
// Runs Vite's own binary (not npx: a process started through npx outlives its PID being killed).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const admin = join(root, 'apps', 'admin');
const builtIndex = join(admin, 'dist', 'index.html');
/** Held while one process builds, so servers started together (replicas, tests) build once. */
const buildLock = join(admin, '.build.lock');
/** A lock older than this was left by a builder that died. */
const STALE_LOCK_MS = 10 * 60_000;
/** What the build reads: a change to any of them makes the build stale. */
const inputs = [
  join(admin, 'src'),
  join(admin, 'index.html'),
  join(admin, 'vite.config.mts'),
  join(admin, 'vite.inline.mts'),
  join(admin, 'vite.precompress.mts'),
  join(root, 'apps', 'api', 'src', 'contract'),
  join(root, 'package-lock.json'),
];

function newestMtimeMs(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path))
    newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

/** Why a build is needed, or null when `dist/` is current. */
export function staleReason() {
  if (!existsSync(builtIndex)) return 'apps/admin/dist is missing';
  const builtAt = statSync(builtIndex).mtimeMs;
  const newest = Math.max(...inputs.map(newestMtimeMs));
  return newest > builtAt ? 'its sources changed since the last build' : null;
}

/** Waits `ms` without an event loop (this script runs before the server starts). */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the build lock, waiting while another process builds; false when it built meanwhile. */
function takeBuildLock(force) {
  for (;;) {
    try {
      closeSync(openSync(buildLock, 'wx'));
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (Date.now() - statSync(buildLock, { throwIfNoEntry: false })?.mtimeMs > STALE_LOCK_MS)
      rmSync(buildLock, { force: true });
    else sleepSync(200);
    if (!force && !existsSync(buildLock) && !staleReason()) return false;
  }
}

/** Builds when stale (or always with `force`); throws when Vite fails. */
export function ensureAdminBuild({ force = false, log = console.log } = {}) {
  const reason = force ? 'asked to' : staleReason();
  if (!reason) return false;
  if (!existsSync(join(admin, 'src'))) return false;
  const vite = join(root, 'node_modules', '.bin', 'vite');
  if (!existsSync(vite)) {
    log('dashboard not built: vite is not installed (run npm ci); the API still starts');
    return false;
  }
  if (!takeBuildLock(force)) return false;
  try {
    if (!force && !staleReason()) return false;
    log(`building the dashboard (${reason})…`);
    const result = spawnSync(vite, ['build', '--logLevel', 'warn'], {
      cwd: admin,
      stdio: 'inherit',
    });
    if (result.status !== 0)
      throw new Error(`the dashboard build failed (vite exit ${result.status})`);
    return true;
  } finally {
    rmSync(buildLock, { force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureAdminBuild({ force: process.argv.includes('--force') });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
