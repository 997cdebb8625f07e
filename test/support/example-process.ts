/**
 * Runs an example's entry point (`examples/<name>/src/main.ts`) as its npm script does
 * (`node -r @swc-node/register`), for the examples' tests: whole runs with piped stdin, or a
 * long-running service stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '../..');

export interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnExample(example: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(REPO_ROOT, 'examples', example, 'src', 'main.ts'), ...args],
    {
      cwd: REPO_ROOT,
      // The examples read the LLM from the environment: never the caller's own.
      env: { ...process.env, LLM_BASE_URL: '', LLM_API_KEY: '', LLM_MODEL: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

/** Runs the example to its end with `stdin` piped in; resolves with its exit code and output. */
export function runExample(
  example: string,
  args: string[],
  opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ExampleRun> {
  const child = spawnExample(example, args, opts.env ?? {});
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin!.end(opts.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A running example service. */
export interface ExampleService {
  /** Everything it printed on stdout so far. */
  output(): string;
  /** SIGTERM, then resolves with the exit code once it has exited. */
  stop(): Promise<number | null>;
}

/** Starts a long-running example and resolves once its stdout matches `ready`. */
export function startExample(
  example: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<ExampleService> {
  const child = spawnExample(example, args, env);
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const service: ExampleService = {
    output: () => stdout,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${example} did not print ${ready} within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (ready.test(stdout)) {
        clearTimeout(timer);
        resolve(service);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${example} exited with ${code} before it was ready: ${stderr}${stdout}`));
    });
  });
}
