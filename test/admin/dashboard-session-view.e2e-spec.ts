/**
 * The session page of the dashboard in chromium (set-up in `dashboard-in-chromium.ts`): the
 * snapshot boundary and its summary card, moving in the log from the keyboard, the layout at two
 * desktop widths, the Recall and Model view tabs, and an assistant's Markdown.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { SUPPORT_SESSION, SUPPORT_TITLE } from './dashboard-seed';
import type { DashboardServer } from './dashboard-server';
import { sessionDetail, signIn, useDashboardInChromium } from './dashboard-in-chromium';

jest.setTimeout(240_000);

describe('admin dashboard in chromium: the session view', () => {
  let shotsDir: string;
  let server: DashboardServer;
  let page: Page;
  let consoleErrors: string[];

  useDashboardInChromium(async (dashboard) => {
    ({ shotsDir, server, page, consoleErrors } = dashboard);
    await signIn(dashboard);
  });

  const detail = (id: string) => sessionDetail(server, id);

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
});
