/**
 * The dashboard in chromium against the real admin server on PostgreSQL: first load of the
 * sessions list over 100k sessions, opening a 10k-message session, scrolling it from its start
 * through its first 2,000 messages (virtualised), jumping to its latest message and back to the
 * start. Time to first rows is read in the page: `performance.now()` (from navigation start, the
 * bundle included) when a MutationObserver first sees a row, and when the app's own view (its
 * controls) shows. Every `/api` request is counted. Side by side: the bare API call behind each
 * view (`fetch` from Node, no browser). Everything lives in a schema of its own.
 */
import { Pool } from 'pg';
import type { Page } from 'playwright-core';
import { assistantMessage, userMessage, type Message } from '@agent-memory/memory';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { launchChromium } from '../test/admin/chromium';
import { startDashboardServer } from '../test/admin/dashboard-server';
import { benchSize } from './bench-size';
import { measure, type BenchResult, type BenchSuite } from './harness';

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SESSIONS = benchSize(100_000, 2_000, 'BENCH_DASHBOARD_SESSIONS');
const BIG_SESSION_MESSAGES = benchSize(10_000, 500);
const BIG = 'bench-big-session';
/** Page loads per case; the median counts. */
const LOADS = benchSize(5, 1);
/** The target for the list and a session's first page. */
const TARGET_MS = 300;
/** How far the scroll case pages in (BENCH_DASHBOARD_SCROLL overrides). */
const SCROLL_MESSAGES = benchSize(2_000, 200, 'BENCH_DASHBOARD_SCROLL');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Controls only the app draws (the list's search, the log's jump bar), not the early rows. */
const APP_SELECTORS = '.toolbar, .transcript-jumps';

/** One page load: in-page times from navigation start, and the API requests it made. */
interface Load {
  /** To the first row on screen. */
  ms: number;
  /** To the first `/api` request leaving the page (the entry script loaded and run). */
  firstApiMs: number;
  /** To the end of the response the first rows come from (`dataPath`). */
  dataMs: number;
  /** To the app's own view (React's, with its controls) on screen. */
  appMs: number;
  requests: number;
}

/** Loads `url` in `page` and measures it (see {@link Load}). */
async function firstRows(
  page: Page,
  url: string,
  selector: string,
  dataPath: string,
): Promise<Load> {
  let requests = 0;
  const count = (request: { url(): string }) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) requests += 1;
  };
  page.on('request', count);
  await page.goto(url);
  await page.waitForSelector(selector);
  await page.waitForSelector(APP_SELECTORS);
  const [ms, firstApiMs, dataMs, appMs] = await page.evaluate((dataPath) => {
    const api = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
      (entry) => entry.name.includes('/api/'),
    );
    const marks = window as unknown as { __firstRowMs: number; __appMs: number };
    return [
      marks.__firstRowMs,
      Math.min(...api.map((entry) => entry.startTime)),
      Math.min(
        ...api.filter((entry) => entry.name.includes(dataPath)).map((entry) => entry.responseEnd),
      ),
      marks.__appMs,
    ];
  }, dataPath);
  // The views poll (the open session every 2 s): count what the first second asks for.
  await page.waitForTimeout(1000);
  page.off('request', count);
  return { ms: ms!, firstApiMs: firstApiMs!, dataMs: dataMs!, appMs: appMs!, requests };
}

export const suite: BenchSuite = {
  name: 'Dashboard (chromium, PostgreSQL)',
  async run() {
    const schema = `bench_dash_${process.pid}_${Date.now().toString(36)}`;
    const table = `${schema}.conversation_memory`;
    const pool = new Pool({ connectionString: DATABASE_URL, max: 4 });
    const backend = await postgresBackend({ url: DATABASE_URL, table });
    const results: BenchResult[] = [];
    const notes: string[] = [];
    const server = { current: null as Awaited<ReturnType<typeof startDashboardServer>> | null };
    const browser = await launchChromium();
    try {
      // 100k small sessions in bulk SQL (two messages each), then one long session through the store.
      await pool.query(
        `INSERT INTO "${schema}".conversation_memory_sessions (session_id, saved, stored, updated_at, meta)
         SELECT 'sess-' || lpad(i::text, 6, '0'), 2, 2, now() - make_interval(secs => i),
                jsonb_build_object('title', 'Agent run ' || i)
         FROM generate_series(1, $1) AS i`,
        [SESSIONS],
      );
      await pool.query(
        `INSERT INTO "${schema}".conversation_memory (session_id, message)
         SELECT 'sess-' || lpad(i::text, 6, '0'), m.message
         FROM generate_series(1, $1) AS i,
              (VALUES ('{"role":"user","parts":[{"type":"text","text":"deploy the service"}]}'::jsonb),
                      ('{"role":"assistant","parts":[{"type":"text","text":"deployed"}]}'::jsonb)) AS m(message)`,
        [SESSIONS],
      );
      const store = await backend.open(BIG);
      for (let start = 0; start < BIG_SESSION_MESSAGES; start += 500) {
        const batch: Message[] = Array.from({ length: 500 }, (_, k) =>
          (start + k) % 2 === 0
            ? userMessage(`question ${start + k}: what does the deploy script do on failure?`)
            : assistantMessage(`answer ${start + k}: it rolls back and pages the on-call.`),
        );
        await store.save(batch);
      }
      await store.setMeta('title', 'A 10k-message session');
      await pool.query('ANALYZE');
      console.error('dashboard bench: data seeded');

      server.current = await startDashboardServer({
        MEMORY_BACKEND: 'postgres',
        DATABASE_URL,
        MEMORY_PG_TABLE: table,
        COMPACT_AT_TOKENS: '10000000',
      });
      const api = server.current;
      const open = async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        await context.addInitScript(
          (token) => window.sessionStorage.setItem('agent-memory.admin-token', token),
          api.token,
        );
        // Notes the moment the first row, then the app's own view, is in the DOM, in the page
        // itself (no polling delay).
        await context.addInitScript((appSelectors) => {
          const marks = window as unknown as { __firstRowMs?: number; __appMs?: number };
          const observer = new MutationObserver(() => {
            if (document.querySelector('.sessions-table tbody tr, article[data-cursor]'))
              marks.__firstRowMs ??= performance.now();
            if (document.querySelector(appSelectors)) {
              marks.__appMs = performance.now();
              observer.disconnect();
            }
          });
          observer.observe(document, { childList: true, subtree: true });
        }, APP_SELECTORS);
        return context.newPage();
      };
      const fresh = async (url: string, selector: string, dataPath: string) => {
        const page = await open();
        try {
          return await firstRows(page, url, selector, dataPath);
        } finally {
          await page.context().close();
        }
      };
      // Warm the server (first compile of each route, prepared statements) once.
      await fresh(`${api.url}/`, '.sessions-table tbody tr', '/api/sessions?');
      await fresh(`${api.url}/?session=${BIG}`, 'article[data-cursor]', '/transcript?');

      const cases = [
        {
          name: `sessions list, first load (${SESSIONS.toLocaleString('en')} sessions)`,
          url: `${api.url}/`,
          selector: '.sessions-table tbody tr',
          data: '/api/sessions?',
          bare: '/api/sessions?limit=50',
        },
        {
          name: `open a ${BIG_SESSION_MESSAGES.toLocaleString('en')}-message session`,
          url: `${api.url}/?session=${BIG}`,
          selector: 'article[data-cursor]',
          data: '/transcript?',
          bare: `/api/sessions/${BIG}/transcript?limit=100`,
        },
      ];
      for (const c of cases) {
        const cold: Load[] = [];
        for (let i = 0; i < LOADS; i += 1) cold.push(await fresh(c.url, c.selector, c.data));
        // A returning operator: same browser profile, the bundle in the HTTP cache.
        const warmPage = await open();
        await firstRows(warmPage, c.url, c.selector, c.data);
        const warm: Load[] = [];
        for (let i = 0; i < LOADS; i += 1)
          warm.push(await firstRows(warmPage, c.url, c.selector, c.data));
        await warmPage.context().close();
        for (const [label, runs] of [
          ['new browser profile', cold],
          ['bundle cached', warm],
        ] as const) {
          const ms = median(runs.map((run) => run.ms));
          const apiMs = median(runs.map((run) => run.firstApiMs));
          const dataMs = median(runs.map((run) => run.dataMs));
          const appMs = median(runs.map((run) => run.appMs));
          results.push({
            case: `${c.name}: first rows, ${label}`,
            subject: 'dashboard in chromium',
            opsPerSec: 1000 / ms,
            meanMs: ms,
          });
          notes.push(
            `${c.name}, ${label}: ${ms.toFixed(0)} ms to first rows from navigation start (median of ${LOADS}; the first API request left at ${apiMs.toFixed(0)} ms, its data was back at ${dataMs.toFixed(0)} ms, so ${(ms - apiMs).toFixed(0)} ms from the first request to rows; the app's own view at ${appMs.toFixed(0)} ms), ${median(runs.map((run) => run.requests))} API requests in the first second; target < ${TARGET_MS} ms: ${ms < TARGET_MS ? 'met' : 'NOT met'}`,
          );
        }
        results.push(
          await measure(
            `${c.name}: its API call`,
            'bare fetch',
            async () => {
              const response = await api.request(c.bare);
              await response.arrayBuffer();
            },
            { timeMs: 500 },
          ),
        );
      }

      console.error('dashboard bench: first loads measured; scrolling');
      // Scroll the long session from its start, page by page, as far as SCROLL_MESSAGES; the
      // transcript is virtualised, so the count loaded is read from its "N loaded" line.
      const page = await open();
      let requests = 0;
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.includes('/transcript')) requests += 1;
      });
      await page.goto(`${api.url}/?session=${BIG}`);
      await page.waitForSelector('article[data-cursor]');
      const loaded = () =>
        page.evaluate(() =>
          Number(
            (document.querySelector('nav[aria-label="Move in the log"] .muted')?.textContent ?? '')
              .replace(/[^0-9 ]/g, '')
              .trim()
              .split(' ')[0] || 0,
          ),
        );
      const inDom = () =>
        page.evaluate(() => document.querySelectorAll('article[data-cursor]').length);
      const started = Date.now();
      while ((await loaded()) < SCROLL_MESSAGES) {
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        await page.waitForTimeout(16);
      }
      const scrollMs = Date.now() - started;
      const shown = await loaded();
      const domAfterScroll = await inDom();
      const scrollRequests = requests;
      results.push({
        case: `scroll a ${BIG_SESSION_MESSAGES.toLocaleString('en')}-message session through its first ${SCROLL_MESSAGES.toLocaleString('en')}`,
        subject: 'dashboard in chromium',
        opsPerSec: 1000 / scrollMs,
        meanMs: scrollMs,
      });

      // Jump to the latest message (the rest of the log loads in pages of 500), then back to the start.
      requests = 0;
      const jumpStarted = Date.now();
      await page.getByRole('button', { name: /Jump to latest/ }).click();
      // PostgreSQL cursors are table-wide: find the last message by its text.
      await page
        .locator('article', { hasText: `answer ${BIG_SESSION_MESSAGES - 1}:` })
        .waitFor({ timeout: 120_000 });
      const latestMs = Date.now() - jumpStarted;
      const latestRequests = requests;
      const domAtEnd = await inDom();
      const backStarted = Date.now();
      await page.getByRole('button', { name: /Jump to start/ }).click();
      await page.locator('article', { hasText: 'question 0:' }).waitFor();
      const startMs = Date.now() - backStarted;
      await page.context().close();
      results.push(
        {
          case: `jump to the latest of ${BIG_SESSION_MESSAGES.toLocaleString('en')} messages (loads the rest)`,
          subject: 'dashboard in chromium',
          opsPerSec: 1000 / latestMs,
          meanMs: latestMs,
        },
        {
          case: 'then jump back to the start',
          subject: 'dashboard in chromium',
          opsPerSec: 1000 / startMs,
          meanMs: startMs,
        },
      );
      notes.push(
        `scrolling: ${scrollRequests} transcript requests for ${shown.toLocaleString('en')} messages loaded, ${scrollMs} ms (${(scrollMs / Math.max(1, scrollRequests)).toFixed(0)} ms a page); ${domAfterScroll} message cards in the DOM (virtualised)`,
        `jump to latest: ${latestRequests} transcript requests, ${latestMs} ms to the last message on screen, ${domAtEnd} cards in the DOM with all ${BIG_SESSION_MESSAGES.toLocaleString('en')} loaded; back to the start: ${startMs} ms`,
      );
    } finally {
      await browser.close();
      await server.current?.stop();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await pool.end();
      await backend.close();
    }
    return { results, notes };
  },
};
