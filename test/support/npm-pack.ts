/**
 * What the packed-package tests share: running a command with its output in the error, and
 * `npm pack` of a workspace (its `prepack` builds it), as a user's `npm install` gets it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** What `npm pack --json` says of one tarball. */
export interface PackResult {
  filename: string;
  files: { path: string }[];
}

/** Runs a command; on failure the error carries its stdout too (where tsc prints its errors). */
export function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  }
}

/** `npm pack` of `workspace` (such as `@agent-memory/memory`) into `destination`. */
export function packWorkspace(workspace: string, destination: string): PackResult {
  const output = run(
    NPM,
    ['pack', '--json', '--workspace', workspace, '--pack-destination', destination],
    REPO_ROOT,
  );
  // The build's own output comes first.
  return (JSON.parse(output.replace(/^[^[]*/, '')) as PackResult[])[0]!;
}
