/**
 * A real filesystem that fills up, for the tests of what a store does on a full disk: a tmpfs of
 * a few MiB mounted for the test (the tests run as root in CI). Where mounting is refused, the
 * caller falls back to a process under `RLIMIT_FSIZE` (see {@link startUnderFileSizeLimit}),
 * which gives the same short writes and `EFBIG`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '../..');

export interface SmallFilesystem {
  /** The mount point (empty when mounted). */
  readonly dir: string;
  /** Unmounts it and removes the mount point. */
  release(): void;
}

/**
 * Mounts a tmpfs of `bytes` on a new folder.
 * @returns null when the system refuses the mount (not root, no mount namespace rights).
 */
export function mountSmallFilesystem(bytes: number): SmallFilesystem | null {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-small-fs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], {
    stdio: 'ignore',
  });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    release() {
      spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Takes `bytes` of a filesystem's space with a file whose removal frees it again.
 * @returns the file's path.
 */
export function takeSpace(dir: string, bytes: number): string {
  const path = join(dir, 'space-taker.bin');
  writeFileSync(path, Buffer.alloc(bytes, 1));
  return path;
}

/** A TypeScript script running under a file size limit; see {@link startUnderFileSizeLimit}. */
export interface LimitedScript {
  readonly child: ChildProcess;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  /** Lifts the limit of the running process (as freeing space would). */
  lift(): void;
  readonly exited: Promise<number | null>;
}

/**
 * Starts `script` (with `node -r @swc-node/register`) under `prlimit --fsize=<bytes>`: a write
 * past that size is cut short, then fails with `EFBIG` (the script must ignore `SIGXFSZ`, whose
 * default action kills it).
 */
export function startUnderFileSizeLimit(
  script: string,
  args: string[],
  bytes: number,
): LimitedScript {
  const child = spawn(
    'prlimit',
    [`--fsize=${bytes}`, process.execPath, '-r', '@swc-node/register', script, ...args],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => output,
    lift() {
      // prlimit execs node, so the child's pid is node's.
      spawnSync('prlimit', ['--pid', String(child.pid), '--fsize=unlimited'], { stdio: 'ignore' });
    },
    exited,
  };
}
