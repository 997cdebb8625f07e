/**
 * `npm run screenshots`: makes the dashboard pictures in `docs/` (or the folder given as the first
 * argument) from the browser test's own set-up (`test/admin`): the admin server from the sources
 * on a throwaway JSON-file store with the test's seeded sessions and the README tour's `tour`
 * session, written and compacted as the tour does (defaults: keep the last 20 messages), with
 * recall on (the lexical `hashed` embedder) for the Recall tab. Debian's chromium at 1440 px
 * draws:
 * - `dashboard-sessions-list.png`: the sessions list;
 * - `dashboard-session-view.png`: the `tour` session at its snapshot boundary (summary card,
 *   pinned task), with the token budget and compaction panels;
 * - `dashboard-model-view.png`: what the model receives on the tour's next turn;
 * - `dashboard-recall.png`: what recall adds to a question about the budget.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchChromium } from '../test/admin/chromium';
import { compactNow, seedDashboard, seedTour, TOUR_SESSION } from '../test/admin/dashboard-seed';
import { startDashboardServer } from '../test/admin/dashboard-server';

/** Wide enough for the whole header, as on a laptop at 1440 px. */
const VIEWPORT = { width: 1440, height: 900 };
/** The session view: tall enough for the whole side column (budget, compaction, manage). */
const SESSION_VIEWPORT = { width: 1440, height: 1200 };

async function main(): Promise<void> {
  const outDir = resolve(process.argv[2] ?? join(__dirname, '..', 'docs'));
  mkdirSync(outDir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-screenshots-'));
  const server = await startDashboardServer({
    MEMORY_BACKEND: 'jsonfile',
    MEMORY_DIR: join(dataDir, 'sessions'),
    MEMORY_RECALL_EMBEDDER: 'hashed',
  });
  const browser = await launchChromium();
  try {
    await seedDashboard(server);
    await seedTour(server);
    const job = await compactNow(server, TOUR_SESSION, { force: true });
    if (job.state !== 'done') throw new Error(`the tour's compaction ${job.state}`);

    const page = await browser.newPage({ viewport: VIEWPORT });
    const shot = async (name: string) => {
      // No caret or hover state in a picture.
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(outDir, name) });
      console.log(join(outDir, name));
    };

    await page.goto(server.dashboardUrl);
    // The tour's session has no title: its row shows "Untitled" over its id.
    await page
      .locator('.sessions-table .id-line code')
      .getByText(TOUR_SESSION, { exact: true })
      .waitFor();
    await page.locator('header.app-header').getByText('ready', { exact: true }).waitFor();
    await page.waitForFunction(
      () =>
        !document.querySelector('.sessions-table td .muted:only-child')?.textContent?.includes('…'),
    );
    await shot('dashboard-sessions-list.png');

    await page.setViewportSize(SESSION_VIEWPORT);
    await page.goto(`${server.url}/?session=${TOUR_SESSION}`);
    await page.getByRole('heading', { name: 'Token budget' }).waitFor();
    await page.getByRole('button', { name: /Jump to snapshot boundary/ }).click();
    const boundary = page
      .getByRole('region', { name: 'Snapshot boundary' })
      .filter({ hasText: /summarised to/ });
    await boundary.waitFor();
    await boundary.getByText('pinned', { exact: true }).first().waitFor();
    // From the top: the session's numbers, the covered messages, the boundary and its summary.
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('dashboard-session-view.png');
    await page.setViewportSize(VIEWPORT);

    await page.getByRole('tab', { name: 'Model view' }).click();
    await page.getByText(/What the model receives on its next turn: \d+ messages/).waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot('dashboard-model-view.png');

    await page.getByRole('tab', { name: 'Recall' }).click();
    await page.getByLabel('Recall query').fill('what budget for the trip?');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    await page
      .getByRole('article', { name: /, a match$/ })
      .first()
      .waitFor();
    await shot('dashboard-recall.png');
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
