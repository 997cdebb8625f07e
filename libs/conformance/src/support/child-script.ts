/**
 * Runs TypeScript scripts as separate OS processes (`node -r @swc-node/register`) for the
 * cross-process tests: each script prints `ready`, waits for `go` on stdin so that all start
 * their work at once, and prints one JSON line with its result before it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ScriptRun<T> {
  /** Resolves with the script's JSON result; rejects when it exits non-zero. */
  result: Promise<T>;
  ready: Promise<void>;
  go(): void;
}

/** Starts `script` (an absolute path, such as `STORE_PROCESS_SCRIPT` of `store-process.ts`) with `args`. */
export function startScript<T>(script: string, args: string[]): ScriptRun<T> {
  const child: ChildProcess = spawn(
    process.execPath,
    // Resolved here, so a consumer's project need not depend on it; the working folder's
    // tsconfig.json (its `paths`) applies to the scripts.
    ['-r', require.resolve('@swc-node/register'), script, ...args],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('ready\n')) markReady();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<T>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve(JSON.parse(last) as T);
      else reject(new Error(`${script} exited with ${code}: ${stderr || stdout}`));
    });
  });
  // A script that dies before `ready` must not leave the caller waiting for it.
  result.catch(() => markReady());
  return { result, ready, go: () => child.stdin!.end('go\n') };
}

/** Starts every run, waits until all are ready, releases them together and collects their results. */
export async function runTogether<T>(runs: ScriptRun<T>[]): Promise<T[]> {
  await Promise.all(runs.map((run) => run.ready));
  for (const run of runs) run.go();
  return Promise.all(runs.map((run) => run.result));
}

/** In a script: prints `ready` and resolves once the parent says `go`. */
export function readyAndWaitForGo(): Promise<void> {
  process.stdout.write('ready\n');
  return new Promise((resolve) => {
    process.stdin.once('data', () => resolve());
    process.stdin.once('end', () => resolve());
  });
}
