import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionsList } from '../features/sessions/components/sessions-list';
import { Transcript } from '../features/transcript/components/transcript';
import { setApiBase, setTokenSource, startEarlyGet } from '../lib/api-client';
import type { SessionPage, TranscriptPage } from '../lib/api-types';
import { parseUrlState } from '../lib/url-state-parse';
import { startFixtureServer, type FixtureServer } from '../test/fixture-server';
import { seedFirstRows, takeFirstRowsData, type FirstRowsData } from './first-rows-data';
import { firstViewRequests } from './first-view-requests';
import { createQueryClient } from './query-client';

const noop = () => {};

const sessions: SessionPage = {
  items: [
    {
      id: 'refund-4711',
      messages: 12,
      stored: 12,
      hasSnapshot: false,
      snapshotUpTo: null,
      updatedAt: new Date().toISOString(),
      meta: { title: 'Refund for order 4711' },
    },
  ],
  next: null,
} as unknown as SessionPage;

const transcript: TranscriptPage = {
  items: [
    {
      cursor: 1,
      covered: false,
      tokens: 7,
      message: { role: 'user', parts: [{ type: 'text', text: 'Where is my refund?' }] },
    },
  ],
  next: null,
} as unknown as TranscriptPage;

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/sessions': () => ({ body: sessions }),
    'GET /api/context-tokens': () => ({ body: { 'refund-4711': 30 } }),
    'GET /api/sessions/refund-4711/transcript': () => ({ body: transcript }),
  });
  setApiBase(server.origin);
  setTokenSource(() => 'tok-1');
});
afterAll(async () => {
  await server.close();
  setApiBase('');
  setTokenSource(() => null);
});
afterEach(() => window.history.replaceState(null, '', '/'));

/** Starts the early GET of the view at `search`'s rows, as the early-load script does, and waits for it. */
async function loadEarly(search: string, token: string): Promise<void> {
  window.history.replaceState(null, '', `/${search}`);
  const rows = firstViewRequests(parseUrlState(search)).rows!;
  await startEarlyGet(rows.path, rows.query, token);
}

const asked = (path: string) => server.requests.filter((line) => line.startsWith(`GET ${path}?`));

/** Renders `ui` with the app's QueryClient, seeded as the app seeds it before its first render. */
function renderSeeded(ui: ReactElement, data: FirstRowsData | null) {
  const client = createQueryClient(() => {});
  seedFirstRows(client, data);
  render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
  return client;
}

describe("React's first render starts from the early rows' data", () => {
  it('shows the list on its first render, without asking for it again', async () => {
    await loadEarly('', 'tok-1');
    const before = asked('/api/sessions').length;
    const data = takeFirstRowsData('tok-1');
    expect(data?.page).toEqual(sessions);
    const client = renderSeeded(
      <SessionsList search="" shown={null} onSearch={noop} onShown={noop} onOpen={noop} />,
      data,
    );
    // No waiting: the rows are there from the first commit, with no loading state before them.
    expect(screen.getByRole('link', { name: 'Refund for order 4711' })).toBeTruthy();
    expect(screen.queryByText('Loading sessions…')).toBeNull();
    expect(client.isFetching({ queryKey: ['sessions'] })).toBe(0);
    expect(asked('/api/sessions')).toHaveLength(before);
  });

  it("shows a session's first messages on its first render", async () => {
    await loadEarly('?session=refund-4711', 'tok-1');
    const before = asked('/api/sessions/refund-4711/transcript').length;
    const data = takeFirstRowsData('tok-1');
    const client = renderSeeded(
      <Transcript sessionId="refund-4711" snapshot={null} summaryTokens={null} messagesEver={1} />,
      data,
    );
    expect(screen.getByText('Where is my refund?')).toBeTruthy();
    expect(screen.queryByText('Loading messages…')).toBeNull();
    expect(client.isFetching({ queryKey: ['transcript'] })).toBe(0);
    expect(asked('/api/sessions/refund-4711/transcript')).toHaveLength(before);
  });

  it('takes nothing for another token, or twice: the app then asks the server itself', async () => {
    await loadEarly('', 'tok-1');
    expect(takeFirstRowsData('tok-other')).toBeNull();
    await loadEarly('', 'tok-1');
    expect(takeFirstRowsData('tok-1')).not.toBeNull();
    expect(takeFirstRowsData('tok-1')).toBeNull();
    renderSeeded(
      <SessionsList search="" shown={null} onSearch={noop} onShown={noop} onOpen={noop} />,
      null,
    );
    expect(screen.getByText('Loading sessions…')).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'Refund for order 4711' })).toBeTruthy();
  });
});
