/**
 * What a user gets from `npm run build` then `node dist/apps/api/src/main.js`: the compiled server
 * serves the dashboard at the URL it prints, and the page renders in Chromium.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
import { startDashboardServer, type DashboardServer } from './dashboard-server';

const ROOT = join(__dirname, '..', '..');
const BUILT_MAIN = join('dist', 'apps', 'api', 'src', 'main.js');

jest.setTimeout(600_000);

describe('the built admin server', () => {
  let dataDir: string;
  let server: DashboardServer | undefined;
  let browser: Browser | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-built-'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const build = spawnSync(npm, ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) {
      throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts the dashboard where the compiled server looks and serves it at the printed URL', async () => {
    expect(existsSync(join(ROOT, 'dist', 'apps', 'admin', 'dist', 'index.html'))).toBe(true);
    server = await startDashboardServer(
      { MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(dataDir, 'sessions') },
      90_000,
      BUILT_MAIN,
    );
    const page = await fetch(server.dashboardUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);

    browser = await launchChromium();
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    const response = await tab.goto(server.dashboardUrl);
    expect(response?.status()).toBe(200);
    await tab.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(await tab.title()).toBe('agent-memory admin');
    expect(errors).toEqual([]);
  });
});
