/**
 * The dashboard in a real browser: Debian's chromium (installed with apt when missing) driven by
 * playwright-core, against the real admin server (`scripts/start.mjs`, which builds the dashboard
 * when stale) on a random port with a seeded JSON-file store (see `dashboard-in-chromium.ts`):
 * signing in, the sessions list (first rows, long ids, a phone's width, search) and a wrong token.
 * The session page is in `dashboard-session-view.e2e-spec.ts` and `dashboard-session-actions.e2e-spec.ts`.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SUPPORT_SESSION, SUPPORT_TITLE } from './dashboard-seed';
import type { DashboardServer } from './dashboard-server';
import { useDashboardInChromium } from './dashboard-in-chromium';

jest.setTimeout(240_000);

describe('admin dashboard in chromium', () => {
  let shotsDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;

  useDashboardInChromium(async (dashboard) => {
    ({ shotsDir, server, browser, page } = dashboard);
  });

  it('signs in through the printed URL and drops the token from the address bar', async () => {
    await page.goto(server.dashboardUrl);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await page.getByText(SUPPORT_TITLE).waitFor();
    // Header: backend, readiness, compaction settings.
    const header = page.locator('header.app-header');
    await header.getByText('ready', { exact: true }).waitFor();
    expect(await header.textContent()).toMatch(/jsonfile.*ready.*inline · at 4,000 tokens/);
    // Whether recall is on, and with what.
    expect(await header.textContent()).toMatch(/Recall\s*on · hashed · memory/);
    // HTML in stored content is text, never markup.
    expect(await page.title()).toBe('agent-memory admin');
    await page.waitForFunction(
      () =>
        !document.querySelector('.sessions-table td .muted:only-child')?.textContent?.includes('…'),
    );
    await page.screenshot({ path: join(shotsDir, 'dashboard-sessions-list.png') });
  });

  it('loads the list and a session with their first rows, and no loading state after them', async () => {
    const loadingAfterRows = () =>
      page.evaluate(() => (window as unknown as { loadingAfterRows?: string }).loadingAfterRows);
    // The inline early-load script runs (the server's policy allows it by its hash) and draws the
    // rows; React's first render starts from the same data.
    for (const [path, ready] of [
      [`/?session=${SUPPORT_SESSION}`, '.transcript-jumps'],
      ['/', 'input[placeholder="Search by id or title"]'],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.locator(ready).waitFor();
      await page.locator('.sessions-table tbody tr, article[data-cursor]').first().waitFor();
      expect([path, await loadingAfterRows()]).toEqual([path, undefined]);
    }
  });

  it('wraps a long id without widening the list, and shows the numbers on a phone', async () => {
    const longId = `batch-run-${'7f3a9c'.repeat(19)}`;
    const saved = await server.request(`/api/sessions/${longId}/messages`, {
      method: 'POST',
      json: { messages: [{ role: 'user', parts: [{ type: 'text', text: 'an untitled run' }] }] },
    });
    expect(saved.status).toBe(201);
    await page.goto(`${server.url}/`);
    const row = page.locator('.sessions-table tbody tr').filter({ hasText: longId });
    await row.waitFor();
    // Untitled: the id is where a titled session's id is.
    expect(await row.locator('.id-line code').textContent()).toBe(longId);
    expect(await row.locator('.cell-title a').textContent()).toBe('Untitled');
    const fits = () =>
      page.evaluate(() => {
        const card = document.querySelector('.table-card')!.getBoundingClientRect();
        const table = document.querySelector('.sessions-table')!.getBoundingClientRect();
        const times = Array.from(document.querySelectorAll('.sessions-table .cell-time')).map(
          (cell) => cell.getBoundingClientRect(),
        );
        return {
          tableWiderThanCard: table.width > card.width + 1,
          timeClipped: times.some((time) => time.right > card.right + 1 || time.width < 20),
        };
      });
    expect(await fits()).toEqual({ tableWiderThanCard: false, timeClipped: false });
    await page.screenshot({ path: join(shotsDir, 'dashboard-long-id.png') });

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.screenshot({ path: join(shotsDir, 'dashboard-phone-list.png') });
      expect(await fits()).toEqual({ tableWiderThanCard: false, timeClipped: false });
      const numbers = page.locator('.sessions-table tbody tr .row-numbers').first();
      expect(await numbers.isVisible()).toBe(true);
      expect(await numbers.textContent()).toMatch(/[\d,]+ messages? · [\d,]+ stored · [\d,]+ tok/);
      await page.screenshot({ path: join(shotsDir, 'dashboard-phone-list.png') });

      // The session page on a phone: the side panels fold to a line each; the log's tabs are near the top.
      await page.goto(`${server.url}/?session=${SUPPORT_SESSION}`);
      const tabs = page.getByRole('tablist', { name: 'Session view' });
      await tabs.waitFor();
      await page
        .getByText(/of [\d,]+ tokens/)
        .first()
        .waitFor();
      const tabsTop = await tabs.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
      expect(tabsTop).toBeLessThan(844);
      expect(await page.getByRole('button', { name: 'Delete…' }).isVisible()).toBe(false);
      await page.screenshot({ path: join(shotsDir, 'dashboard-phone-session.png') });
      // A tap opens a panel.
      await page.locator('summary', { hasText: 'Manage' }).click();
      expect(await page.getByRole('button', { name: 'Delete…' }).isVisible()).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }
    const deleted = await server.request(`/api/sessions/${longId}`, { method: 'DELETE' });
    expect(deleted.status).toBeLessThan(300);
    await page.goto(`${server.url}/`);
    await page.getByText(SUPPORT_TITLE).waitFor();
  });

  it('searches by title with the search kept in the URL', async () => {
    await page.getByPlaceholder('Search by id or title').fill('refund');
    await page.waitForURL(/[?&]q=refund/);
    await page.waitForFunction(
      () => document.querySelectorAll('.sessions-table tbody tr').length === 1,
    );
    expect(await page.locator('.sessions-table tbody tr').textContent()).toContain(SUPPORT_SESSION);
  });

  it('brings the sign-in back with a clear message for a wrong token', async () => {
    const other = await browser.newPage();
    try {
      await other.goto(`${server.url}/?token=not-the-token`);
      const alert = other.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('The server refused the admin token');
      expect(new URL(other.url()).searchParams.has('token')).toBe(false);
      await other.getByLabel('Admin token').fill(server.token);
      await other.getByRole('button', { name: 'Sign in' }).click();
      await other.getByRole('heading', { name: 'Sessions' }).waitFor();
    } finally {
      await other.close();
    }
  });
});
