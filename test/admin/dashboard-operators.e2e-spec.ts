/**
 * The operators' views in a real browser (Debian's chromium driven by playwright-core) against the
 * real admin server on a JSON-file store with a retention policy: who is signed in, the retention
 * policy and its dry run, the resource filter with "Erase resource" and its receipt, and the audit
 * log of that erase. Screenshots go to DASHBOARD_SCREENSHOTS_DIR (default: a temp folder, printed).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { startDashboardServer, type DashboardServer } from './dashboard-server';

jest.setTimeout(240_000);

const RESOURCE = 'ana@example.test';
/** Sessions of the resource erased below, and one of another resource that stays. */
const ANA_SESSIONS = ['ana-billing', 'ana-travel'];
const OTHER_SESSION = 'ben-support';
const IDLE_MS = 2000;

/** Relative luminance of a computed `rgb(…)`/`rgba(…)` colour (0 black to 1 white). */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r!) + 0.7152 * linear(g!) + 0.0722 * linear(b!);
}

describe('operators in the dashboard (chromium)', () => {
  let dataDir: string;
  let shotsDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-dashboard-ops-'));
    shotsDir = process.env.DASHBOARD_SCREENSHOTS_DIR ?? join(dataDir, 'screenshots');
    mkdirSync(shotsDir, { recursive: true });
    server = await startDashboardServer({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(dataDir, 'sessions'),
      MEMORY_RETENTION_MAX_IDLE: '2s',
      // Only the dry run below looks; no periodic sweep deletes what the test reads.
      MEMORY_RETENTION_SWEEP_INTERVAL: '1d',
    });
    for (const [id, resource] of [
      ...ANA_SESSIONS.map((id) => [id, RESOURCE] as const),
      [OTHER_SESSION, 'ben@example.test'] as const,
    ]) {
      const saved = await server.request(`/api/sessions/${id}/messages`, {
        method: 'POST',
        json: { messages: [{ role: 'user', parts: [{ type: 'text', text: `hello from ${id}` }] }] },
      });
      expect(saved.status).toBe(201);
      const meta = await server.request(`/api/sessions/${id}/meta`, {
        method: 'PATCH',
        json: { resource, title: `Chat ${id}` },
      });
      expect(meta.status).toBe(200);
    }
    // Every seeded session is idle past the policy's limit from here on.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 200));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    console.log(`dashboard screenshots: ${shotsDir}`);
    rmSync(join(dataDir, 'sessions'), { recursive: true, force: true });
  });

  it('says who is signed in, with which role', async () => {
    await page.goto(server.dashboardUrl);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    const header = page.locator('header.app-header');
    await header.getByText('admin · admin').waitFor();
    // Admins are offered the audit log.
    await header.getByRole('button', { name: 'Audit log' }).waitFor();
  });

  it('shows the retention policy and what a sweep would expire now, changing nothing', async () => {
    await page.locator('summary', { hasText: 'Retention' }).click();
    await page.getByRole('button', { name: 'Dry run' }).click();
    const outcome = page.locator('.retention [role="status"]');
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain('would expire 3 sessions');
    expect((await page.locator('.retention-expired li').allTextContents()).sort()).toEqual(
      [...ANA_SESSIONS, OTHER_SESSION].sort(),
    );
    await page.screenshot({ path: join(shotsDir, 'dashboard-retention-dry-run.png') });
    // A dry run deletes nothing.
    expect((await server.request(`/api/sessions/${OTHER_SESSION}`)).status).toBe(200);
  });

  it("filters the list by resource and erases that resource's sessions with a receipt", async () => {
    await page.getByPlaceholder('Resource').fill(RESOURCE);
    const rows = page.locator('.sessions-table tbody tr');
    await page.waitForFunction(
      (count) => document.querySelectorAll('.sessions-table tbody tr').length === count,
      ANA_SESSIONS.length,
    );
    expect(await rows.allTextContents()).toEqual(
      expect.arrayContaining(ANA_SESSIONS.map((id) => expect.stringContaining(`Chat ${id}`))),
    );

    await page.getByRole('button', { name: 'Erase resource…' }).click();
    const erase = page.getByRole('button', { name: 'Erase resource', exact: true });
    expect(await erase.isDisabled()).toBe(true);
    await page.getByLabel(/to confirm/).fill(RESOURCE);
    await page.screenshot({ path: join(shotsDir, 'dashboard-erase-confirm.png') });
    await erase.click();
    const receipt = page.getByRole('status').filter({ hasText: 'Erased' });
    await receipt.waitFor();
    expect(await receipt.textContent()).toContain(`Erased ${RESOURCE}: 2 sessions, 2 messages`);
    await page.screenshot({ path: join(shotsDir, 'dashboard-erase-receipt.png') });

    for (const id of ANA_SESSIONS) {
      expect((await server.request(`/api/sessions/${id}`)).status).toBe(404);
    }
    expect((await server.request(`/api/sessions/${OTHER_SESSION}`)).status).toBe(200);
  });

  it('lists the erase in the audit log, with who did it and how it ended', async () => {
    const open = page.locator('header.app-header').getByRole('button', { name: 'Audit log' });
    await open.click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    // Under the pointer, the header's button keeps its light text on a dark background.
    const [color, background] = await open.evaluate((button) => {
      const style = getComputedStyle(button);
      return [style.color, style.backgroundColor];
    });
    expect(luminance(color)).toBeGreaterThan(luminance(background));
    const row = page
      .locator('.audit-table tbody tr')
      .filter({ hasText: 'DELETE /api/resources/:resource' });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('admin · admin');
    expect(text).toContain(RESOURCE);
    expect(text).toContain('200');
    await page.screenshot({ path: join(shotsDir, 'dashboard-audit-log.png') });
    expect(consoleErrors).toEqual([]);
  });
});
