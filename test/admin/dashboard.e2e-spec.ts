/**
 * The dashboard in a real browser: Debian's chromium (installed with apt when missing) driven by
 * playwright-core, against the real admin server (`scripts/start.mjs`, which builds the dashboard
 * when stale) on a random port with a seeded JSON-file store. Screenshots of the list and the
 * session view go to DASHBOARD_SCREENSHOTS_DIR (default: a temp folder, printed).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SessionDetail, SessionExport } from '@agent-memory/api-contract';
import { launchChromium } from './chromium';
import {
  SUPPORT_SESSION,
  SUPPORT_TITLE,
  compactNow,
  seedDashboard,
  supportConversation,
} from './dashboard-seed';
import { startDashboardServer, type DashboardServer } from './dashboard-server';

jest.setTimeout(240_000);

describe('admin dashboard in chromium', () => {
  let dataDir: string;
  let shotsDir: string;
  let server: DashboardServer;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-dashboard-'));
    shotsDir = process.env.DASHBOARD_SCREENSHOTS_DIR ?? join(dataDir, 'screenshots');
    mkdirSync(shotsDir, { recursive: true });
    server = await startDashboardServer({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(dataDir, 'sessions'),
      COMPACT_AT_TOKENS: '4000',
      COMPACT_KEEP_RECENT: '6',
      // Recall on (lexical embedder, in-process vectors), for the recall box.
      MEMORY_RECALL_EMBEDDER: 'hashed',
    });
    await seedDashboard(server);
    const first = await compactNow(server, SUPPORT_SESSION, { force: true });
    expect(first.state).toBe('done');
    // Three more turns after the snapshot, for the compaction run from the browser.
    const more = supportConversation(3).slice(1);
    expect(
      (
        await server.request(`/api/sessions/${SUPPORT_SESSION}/messages`, {
          method: 'POST',
          json: { messages: more },
        })
      ).status,
    ).toBe(201);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    // Notes a loading state (`aria-busy`) shown after rows were on screen: the early rows must
    // give way to React's rows directly, never to "Loading…". Per document, so per page load.
    await page.addInitScript(() => {
      const seen = window as unknown as { loadingAfterRows?: string };
      let rows = false;
      new MutationObserver(() => {
        rows ||= document.querySelector('.sessions-table tbody tr, article[data-cursor]') !== null;
        const busy = document.querySelector('[aria-busy="true"]');
        if (rows && busy) seen.loadingAfterRows ??= busy.textContent ?? '';
      }).observe(document, { childList: true, subtree: true });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    console.log(`dashboard screenshots: ${shotsDir}`);
    if (!process.env.DASHBOARD_SCREENSHOTS_DIR) {
      // keep the screenshots; drop the store
      rmSync(join(dataDir, 'sessions'), { recursive: true, force: true });
    }
  });

  const detail = async (id: string): Promise<SessionDetail> =>
    (await (await server.request(`/api/sessions/${id}`)).json()) as SessionDetail;

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

  it('opens the session and shows the snapshot boundary with the summary card', async () => {
    const before = await detail(SUPPORT_SESSION);
    await page.getByRole('link', { name: SUPPORT_TITLE }).click();
    await page.waitForURL(new RegExp(`session=${SUPPORT_SESSION}`));
    // The log opens at its start (the third turn's tool error is marked there); the boundary is a
    // jump away (the log is virtualised).
    await page.getByText('error', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: /Jump to snapshot boundary/ }).click();
    // The "summarised to" part waits for the context's token totals.
    const boundary = page
      .getByRole('region', { name: 'Snapshot boundary' })
      .filter({ hasText: /summarised to/ });
    await boundary.waitFor();
    expect(await boundary.textContent()).toMatch(
      /Messages 1–\d+ covered: [\d,]+ tokens summarised to [\d,]+/,
    );
    expect(await boundary.textContent()).toContain(`covers up to #${before.snapshot!.upTo}`);
    // It lands below the sticky header and jump bar, not behind them.
    const landing = await page.evaluate(() => ({
      boundaryTop: document
        .querySelector('[aria-label="Snapshot boundary"]')!
        .getBoundingClientRect().top,
      barsBottom: Math.max(
        document.querySelector('.app-header')!.getBoundingClientRect().bottom,
        document.querySelector('.transcript-jumps')!.getBoundingClientRect().bottom,
      ),
    }));
    expect(landing.boundaryTop).toBeGreaterThanOrEqual(landing.barsBottom);
    await page.screenshot({ path: join(shotsDir, 'dashboard-boundary-jump.png') });
    expect(await boundary.textContent()).toContain(before.snapshot!.summary.split('\n')[0]!);
    await boundary.getByText('pinned', { exact: true }).first().waitFor();
    await boundary.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, -260));
    await page.screenshot({ path: join(shotsDir, 'dashboard-session-view.png') });
  });

  it('jumps to the latest message and back to the start, from the keyboard', async () => {
    const jumps = page.getByRole('navigation', { name: 'Move in the log' });
    const log = (await (
      await server.request(`/api/sessions/${SUPPORT_SESSION}/messages?limit=500`)
    ).json()) as { items: { cursor: number }[] };
    const lastCursor = log.items[log.items.length - 1]!.cursor;
    await jumps.getByRole('button', { name: /Jump to latest/ }).focus();
    await page.keyboard.press('Enter');
    const last = page.locator('article[data-cursor]').last();
    await page.waitForFunction(
      (cursor) => document.querySelector(`article[data-cursor="${cursor}"]`) !== null,
      lastCursor,
    );
    expect(await last.isVisible()).toBe(true);
    await page.getByText('End of the log').waitFor();
    // Focus stays visible on the control the keyboard used.
    expect(
      await jumps
        .getByRole('button', { name: /Jump to start/ })
        .evaluate((button) => getComputedStyle(button).visibility),
    ).toBe('visible');
    await jumps.getByRole('button', { name: /Jump to start/ }).focus();
    await page.keyboard.press('Enter');
    await page.locator('article[data-cursor="1"]').waitFor();
    expect(await page.locator('article[data-cursor="1"]').isVisible()).toBe(true);
  });

  describe.each([
    { width: 1280, height: 860 },
    { width: 1440, height: 900 },
  ])('at $width px', (viewport) => {
    beforeAll(async () => {
      await page.setViewportSize(viewport);
      await page.goto(`${server.url}/?session=${SUPPORT_SESSION}`);
      await page.locator('.transcript-jumps').waitFor();
      await page.locator('header.app-header').getByText('ready', { exact: true }).waitFor();
      await page.getByRole('heading', { name: 'Token budget' }).waitFor();
    });
    afterAll(() => page.setViewportSize({ width: 1280, height: 860 }));

    /** Whether the point at the centre of `selector`'s element hits it (nothing on top of it). */
    const hitAtCentre = (name: string) =>
      page.getByRole('button', { name }).evaluate((button) => {
        const box = button.getBoundingClientRect();
        const x = box.left + box.width / 2;
        const y = box.top + box.height / 2;
        const hit = document.elementFromPoint(x, y);
        return {
          inWindow: y > 0 && y < window.innerHeight,
          hit: hit !== null && button.contains(hit),
        };
      });

    it('keeps the header to one row, its height the offset of the bars under it', async () => {
      const header = await page.evaluate(() => {
        const bar = document.querySelector('header.app-header') as HTMLElement;
        const parts = [
          ...Array.from(bar.children),
          ...Array.from(bar.querySelectorAll('.header-facts > div')),
        ];
        return {
          height: bar.getBoundingClientRect().height,
          tallestPart: Math.max(...parts.map((part) => part.getBoundingClientRect().height)),
          partTops: new Set(
            Array.from(bar.querySelectorAll('.header-facts > div')).map((fact) =>
              Math.round(fact.getBoundingClientRect().top),
            ),
          ).size,
          variable: getComputedStyle(document.documentElement).getPropertyValue(
            '--app-header-height',
          ),
          offsetHeight: bar.offsetHeight,
          // Backend, status and who is signed in are read whole; longer facts may be cut.
          cut: Array.from(bar.querySelectorAll('.header-facts dd'))
            .filter((fact) => fact.scrollWidth > fact.clientWidth + 1)
            .map((fact) => fact.previousElementSibling!.textContent),
        };
      });
      expect(header.partTops).toBe(1);
      expect(header.height).toBeLessThan(header.tallestPart * 2);
      expect(header.variable).toBe(`${header.offsetHeight}px`);
      expect(header.cut).toEqual(
        viewport.width >= 1440
          ? []
          : expect.not.arrayContaining(['Backend', 'Status', 'Signed in']),
      );
    });

    it('keeps the log toolbar below the header once the page scrolls, and clickable', async () => {
      await page.evaluate(() =>
        window.scrollTo(0, (document.documentElement.scrollHeight - window.innerHeight) / 2),
      );
      const bars = await page.evaluate(() => ({
        scrolled: window.scrollY,
        headerBottom: document.querySelector('header.app-header')!.getBoundingClientRect().bottom,
        toolbarTop: document.querySelector('.transcript-jumps')!.getBoundingClientRect().top,
      }));
      expect(bars.scrolled).toBeGreaterThan(200);
      expect(bars.toolbarTop).toBeGreaterThanOrEqual(bars.headerBottom - 0.5);
      expect(await hitAtCentre('↓ Jump to latest')).toEqual({ inWindow: true, hit: true });
      // A real click: it fails when another element would receive it.
      await page.getByRole('button', { name: /Jump to latest/ }).click({ timeout: 5_000 });
      await page.getByText('End of the log').waitFor();
    });

    it('reaches Export, Clear and Delete by scrolling the page, with nothing over them', async () => {
      const actions = ['Export JSON', 'Export Markdown', 'Clear…', 'Delete…'];
      for (const name of actions) {
        const button = page.getByRole('button', { name });
        // No scroll box of their own between them and the page.
        const scrollBoxes = await button.evaluate((element) => {
          const boxes: string[] = [];
          for (let node = element.parentElement; node; node = node.parentElement) {
            const overflow = getComputedStyle(node).overflowY;
            if (
              node !== document.documentElement &&
              node !== document.body &&
              (overflow === 'auto' || overflow === 'scroll') &&
              node.scrollHeight > node.clientHeight
            )
              boxes.push(node.className);
          }
          return boxes;
        });
        expect([name, scrollBoxes]).toEqual([name, []]);
      }
      // Deep in the log, the side column has stuck with its end on screen.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      for (const name of actions)
        expect([name, await hitAtCentre(name)]).toEqual([name, { inWindow: true, hit: true }]);
      // And at the top of the page, a scroll of the page brings them into view.
      await page.evaluate(() => window.scrollTo(0, 0));
      for (const name of actions) {
        await page.getByRole('button', { name }).scrollIntoViewIfNeeded();
        expect([name, await hitAtCentre(name)]).toEqual([name, { inWindow: true, hit: true }]);
      }
      await page.getByRole('button', { name: 'Clear…' }).click({ timeout: 5_000 });
      await page.getByRole('button', { name: 'Clear…' }).click({ timeout: 5_000 });
    });
  });

  it('shows what semantic recall would add for a query (Recall tab)', async () => {
    await page.getByRole('tab', { name: 'Recall' }).click();
    await page.waitForURL(/view=recall/);
    await page.getByLabel('Recall query').fill('statement page showing both charges');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const hit = page.getByRole('article', { name: /, a match$/ }).first();
    await hit.waitFor();
    expect(await hit.textContent()).toMatch(/score \d\.\d\d/);
    // The covered message with those words is among what would be quoted.
    await page
      .getByRole('article')
      .filter({ hasText: 'Here is the statement page showing both charges.' })
      .first()
      .waitFor();
    expect(await page.getByRole('article', { name: /, a neighbour$/ }).count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(shotsDir, 'dashboard-recall.png') });
    // On a narrow window the recall box and the log's jump controls fit without sideways scrolling.
    await page.setViewportSize({ width: 420, height: 860 });
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByRole('tab', { name: 'Stored log' }).click();
    await page.getByRole('navigation', { name: 'Move in the log' }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('shows what the model will see next turn', async () => {
    await page.getByRole('tab', { name: 'Model view' }).click();
    await page.waitForURL(/view=model/);
    await page.getByText(/What the model receives on its next turn: \d+ messages/).waitFor();
    const badges = await page
      .locator('.model-view article .message-head [class*="badge-source-"]')
      .allTextContents();
    expect(badges[0]).toBe('summary');
    expect(badges[1]).toBe('pinned');
    expect(badges.slice(2).every((badge) => badge === 'recent')).toBe(true);
    await page.screenshot({ path: join(shotsDir, 'dashboard-model-view.png') });
    await page.getByRole('tab', { name: 'Stored log' }).click();
  });

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

  it("shows an assistant's Markdown formatted and sanitised, and raw on request", async () => {
    const answer =
      '**Refund** queued:\n\n1. check the `charge`\n2. email the customer\n\n' +
      '<img src=x onerror="document.title=\'owned\'"><a href="javascript:document.title=\'owned\'">status</a>';
    const saved = await server.request('/api/sessions/markdown-answer/messages', {
      method: 'POST',
      json: {
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'What happens next?' }] },
          { role: 'assistant', parts: [{ type: 'text', text: answer }] },
        ],
      },
    });
    expect(saved.status).toBe(201);
    await page.goto(`${server.url}/?session=markdown-answer`);
    const message = page.getByRole('article', { name: 'Assistant message #2' });
    await message.locator('.markdown strong').waitFor();
    expect(await message.locator('.markdown ol li').allTextContents()).toEqual([
      'check the charge',
      'email the customer',
    ]);
    // HTML written in the text stays text: no image, no link, nothing runs.
    expect(await message.locator('img, a').count()).toBe(0);
    expect(await message.locator('.markdown').textContent()).toContain('<img src=x onerror=');
    expect(await page.title()).toBe('agent-memory admin');
    await page.screenshot({ path: join(shotsDir, 'dashboard-markdown.png') });
    await message.getByRole('button', { name: 'raw' }).click();
    expect(await message.locator('.message-text').textContent()).toBe(answer);
    expect(consoleErrors).toEqual([]);
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
