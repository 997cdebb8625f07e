/**
 * `npm run migration:run` (the TypeORM CLI route from the sources) without `DATABASE_URL` says
 * that first, not TypeORM's "Unable to open file" for the data source.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..');

describe('npm run migration:run', () => {
  it('without DATABASE_URL names the missing variable first and exits non-zero', () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DATABASE_URL;
    const run = spawnSync(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['run', '--silent', 'migration:run'],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env,
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr.trimStart()).toMatch(/^DATABASE_URL is not set: point it at the PostgreSQL/);
    expect(run.stderr + run.stdout).not.toContain('Unable to open file');
  }, 60_000);
});
