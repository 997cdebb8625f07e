/**
 * What an operator does to a session from the dashboard in chromium (set-up in
 * `dashboard-in-chromium.ts`): a forced compaction and its result (also in another tab), a
 * message written meanwhile through the API, the JSON export, and deleting the session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SessionExport } from '@agent-memory/api-contract';
import { SUPPORT_SESSION } from './dashboard-seed';
import type { DashboardServer } from './dashboard-server';
import { sessionDetail, signIn, useDashboardInChromium } from './dashboard-in-chromium';

jest.setTimeout(240_000);

describe('admin dashboard in chromium: session actions', () => {
  let shotsDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  let consoleErrors: string[];

  useDashboardInChromium(async (dashboard) => {
    ({ shotsDir, server, browser, page, consoleErrors } = dashboard);
    await signIn(dashboard);
    await page.goto(`${server.url}/?session=${SUPPORT_SESSION}`);
    await page.locator('.transcript-jumps').waitFor();
  });

  const detail = (id: string) => sessionDetail(server, id);

  it('runs a forced compaction and shows its result', async () => {
    const before = await detail(SUPPORT_SESSION);
    await page.getByLabel(/Force/).check();
    // Before: the last compaction (the seed's, from the server) is shown already.
    const status = page.locator('.job-done');
    expect(await status.textContent()).toContain(
      `messages up to #${before.snapshot!.upTo} (the new boundary)`,
    );
    await page.getByRole('button', { name: 'Compact now' }).click();
    await page.waitForFunction(
      (upTo) =>
        /messages up to #\d+ \(the new boundary\)/.test(
          document.querySelector('.job-done')?.textContent ?? '',
        ) &&
        !document
          .querySelector('.job-done')!
          .textContent!.includes(`messages up to #${upTo} (the new boundary)`),
      before.snapshot!.upTo,
    );
    const after = await detail(SUPPORT_SESSION);
    expect(after.snapshot!.upTo).toBeGreaterThan(before.snapshot!.upTo);
    const text = await status.textContent();
    expect(text).toContain('Compacted');
    expect(text).toContain(`messages up to #${after.snapshot!.upTo} (the new boundary)`);
    expect(text).toMatch(/[\d,]+ → [\d,]+ tokens/);
    expect(text).toContain('extractive (offline)');
    // Force was for that run only.
    expect(await page.getByLabel(/Force/).isChecked()).toBe(false);
    // The log redraws with the new boundary.
    await page.getByRole('button', { name: /Jump to snapshot boundary/ }).click();
    await page
      .getByRole('region', { name: 'Snapshot boundary' })
      .getByText(`covers up to #${after.snapshot!.upTo}`)
      .waitFor();

    // Another tab (no sessionStorage of this one) shows the same last compaction, from the server.
    const other = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await other.goto(`${server.url}/?token=${server.token}&session=${SUPPORT_SESSION}`);
      const elsewhere = other.locator('.job-done');
      await elsewhere.waitFor();
      expect(await elsewhere.textContent()).toContain(
        `messages up to #${after.snapshot!.upTo} (the new boundary)`,
      );
    } finally {
      await other.close();
    }
  });

  it('shows a message written meanwhile through the API as the "new messages" pill', async () => {
    const saved = await server.request(`/api/sessions/${SUPPORT_SESSION}/messages`, {
      method: 'POST',
      json: {
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Written from outside the dashboard' }] },
        ],
      },
    });
    expect(saved.status).toBe(201);
    const pill = page.getByRole('button', { name: /1 new message/ });
    await pill.waitFor();
    expect(await page.getByText('Written from outside the dashboard').count()).toBe(0);
    await pill.click();
    await page.getByText('Written from outside the dashboard').waitFor();
  });

  it('exports the session as JSON', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${SUPPORT_SESSION}.json`);
    const doc = JSON.parse(readFileSync((await download.path())!, 'utf8')) as SessionExport;
    const now = await detail(SUPPORT_SESSION);
    expect(doc.session.id).toBe(SUPPORT_SESSION);
    expect(doc.messages).toHaveLength(now.stored);
    expect(doc.snapshot?.upTo).toBe(now.snapshot!.upTo);
  });

  it('deletes the session after the id is typed', async () => {
    // From the top of the side column: the confirmation opens below its fold.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      document.querySelector('.session-side')!.scrollTop = 0;
    });
    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('button', { name: 'Delete session' });
    expect(await confirm.isDisabled()).toBe(true);
    // It scrolled into view within the side column and the window, with the cursor in its field.
    const inView = await confirm.evaluate((button) => {
      const box = button.getBoundingClientRect();
      const side = document.querySelector('.session-side')!.getBoundingClientRect();
      return box.top >= side.top && box.bottom <= side.bottom && box.bottom <= window.innerHeight;
    });
    expect(inView).toBe(true);
    expect(
      await page.getByLabel(/to confirm/).evaluate((input) => input === document.activeElement),
    ).toBe(true);
    await page.screenshot({ path: join(shotsDir, 'dashboard-delete-confirm.png') });
    await page.getByLabel(/to confirm/).fill(SUPPORT_SESSION);
    await confirm.click();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    expect((await server.request(`/api/sessions/${SUPPORT_SESSION}`)).status).toBe(404);
    expect(consoleErrors).toEqual([]);
  });
});
