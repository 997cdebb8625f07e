/**
 * The `agent-memory` command as the specs run it: from the sources (`node -r @swc-node/register`)
 * in the repository's root, on a clean environment (none of the server's store variables), so the
 * store is only what a spec passes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The repository's root: the command's working folder (`./data/sessions` is under it). */
export const REPO_ROOT = join(__dirname, '../..');

/** The command's source. */
export const AGENT_MEMORY_CLI = join(REPO_ROOT, 'libs/memory/src/cli/agent-memory.ts');

/** How a run of the command ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a run starts from: this process's, less the server's store variables. */
export function cliBaseEnv(): Record<string, string> {
  const { DATABASE_URL: _, MEMORY_BACKEND: __, MEMORY_DIR: ___, ...base } = process.env;
  return base as Record<string, string>;
}

/**
 * Runs `agent-memory <args>` with `env` added to {@link cliBaseEnv} and `input` on stdin (closed
 * after it); `nodeArgs` go to Node before the command (a `--require` hook).
 */
export function runAgentMemory(
  args: string[],
  opts: { env?: Record<string, string>; input?: string; nodeArgs?: string[] } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', ...(opts.nodeArgs ?? []), AGENT_MEMORY_CLI, ...args],
      { cwd: REPO_ROOT, env: { ...cliBaseEnv(), ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
