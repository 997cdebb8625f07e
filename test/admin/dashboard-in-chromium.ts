/**
 * The set-up the dashboard specs (`dashboard*.e2e-spec.ts`) share: the real admin server on a
 * seeded JSON-file store (one session compacted, three turns after its snapshot) with recall on,
 * and one chromium page on it that records console errors. Screenshots go to
 * DASHBOARD_SCREENSHOTS_DIR (default: a temp folder, printed when closed).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { SessionDetail } from '@agent-memory/api-contract';
import { launchChromium } from './chromium';
import { SUPPORT_SESSION, compactNow, seedDashboard, supportConversation } from './dashboard-seed';
import { startDashboardServer, type DashboardServer } from './dashboard-server';

/** What {@link openDashboardInChromium} started. */
export interface DashboardInChromium {
  dataDir: string;
  shotsDir: string;
  server: DashboardServer;
  browser: Browser;
  page: Page;
  /** The page's console errors and uncaught errors, in order. */
  consoleErrors: string[];
}

/**
 * Starts the server, seeds it and opens a page (not yet signed in: see {@link signIn}). What was
 * started is stopped again when a later step fails.
 */
async function openDashboardInChromium(): Promise<DashboardInChromium> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-dashboard-'));
  const shotsDir = process.env.DASHBOARD_SCREENSHOTS_DIR ?? join(dataDir, 'screenshots');
  mkdirSync(shotsDir, { recursive: true });
  const opened: Partial<DashboardInChromium> = { dataDir, shotsDir, consoleErrors: [] };
  try {
    opened.server = await startDashboardServer({
      MEMORY_BACKEND: 'jsonfile',
      MEMORY_DIR: join(dataDir, 'sessions'),
      COMPACT_AT_TOKENS: '4000',
      COMPACT_KEEP_RECENT: '6',
      // Recall on (lexical embedder, in-process vectors), for the recall box.
      MEMORY_RECALL_EMBEDDER: 'hashed',
    });
    const server = opened.server;
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
    opened.browser = await launchChromium();
    const page = await opened.browser.newPage({ viewport: { width: 1280, height: 860 } });
    opened.page = page;
    page.on('console', (message) => {
      if (message.type() === 'error') opened.consoleErrors!.push(message.text());
    });
    page.on('pageerror', (error) => opened.consoleErrors!.push(error.message));
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
    return opened as DashboardInChromium;
  } catch (error) {
    await closeDashboardInChromium(opened);
    throw error;
  }
}

/** Closes the browser and stops the server; keeps the screenshots, drops the store. */
async function closeDashboardInChromium(
  opened: Partial<DashboardInChromium> | undefined,
): Promise<void> {
  await opened?.browser?.close();
  await opened?.server?.stop();
  if (!opened?.shotsDir || !opened.dataDir) return;
  console.log(`dashboard screenshots: ${opened.shotsDir}`);
  if (!process.env.DASHBOARD_SCREENSHOTS_DIR) {
    rmSync(join(opened.dataDir, 'sessions'), { recursive: true, force: true });
  }
}

/**
 * Opens the dashboard before the spec file's tests (then `ready`, for the file's own variables
 * and first steps) and closes it after them.
 */
export function useDashboardInChromium(
  ready: (dashboard: DashboardInChromium) => Promise<void>,
): void {
  let dashboard: DashboardInChromium | undefined;
  beforeAll(async () => {
    dashboard = await openDashboardInChromium();
    await ready(dashboard);
  });
  afterAll(() => closeDashboardInChromium(dashboard));
}

/** Signs the page in through the URL the server prints, and waits for the sessions list. */
export async function signIn({ page, server }: DashboardInChromium): Promise<void> {
  await page.goto(server.dashboardUrl);
  await page.getByRole('heading', { name: 'Sessions' }).waitFor();
}

/** The session `id` as the admin API returns it. */
export async function sessionDetail(server: DashboardServer, id: string): Promise<SessionDetail> {
  return (await (await server.request(`/api/sessions/${id}`)).json()) as SessionDetail;
}
