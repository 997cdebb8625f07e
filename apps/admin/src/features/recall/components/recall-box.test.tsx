import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { RecallView } from '../../../lib/api-types';
import { renderWithClient } from '../../../test/render';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { RecallBox } from './recall-box';

const at = '2026-11-30T10:00:00.000Z';

/** The fixture answers per session: `trip` recalls, `quiet` finds nothing, `off` has no recall. */
function recallAnswer(session: string, q: string): { status?: number; body: unknown } {
  if (session === 'off') {
    return {
      status: 501,
      body: { statusCode: 501, code: 'RECALL_NOT_CONFIGURED', message: 'not configured' },
    };
  }
  if (session === 'broken') {
    return { status: 500, body: { statusCode: 500, code: 'INTERNAL', message: 'store down' } };
  }
  const view: RecallView =
    session === 'quiet'
      ? { query: q, ranges: [], message: null }
      : {
          query: q,
          ranges: [
            {
              session: 'trip',
              messages: [
                { cursor: 4, role: 'assistant', text: 'sure, where to?', at, score: null },
                {
                  cursor: 5,
                  role: 'user',
                  text: '<img src=x onerror=alert(1)> passport ZX-4471',
                  at,
                  score: 0.8123,
                },
                { cursor: 6, role: 'assistant', text: 'noted', at, score: null },
              ],
            },
            {
              session: 'trip-2024',
              messages: [{ cursor: 2, role: 'user', text: 'old passport', at, score: 0.41 }],
            },
          ],
          message: 'Recalled from earlier conversation…',
        };
  return { body: view };
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/sessions/trip/recall': (url) => recallAnswer('trip', url.searchParams.get('q')!),
    'GET /api/sessions/quiet/recall': (url) => recallAnswer('quiet', url.searchParams.get('q')!),
    'GET /api/sessions/off/recall': (url) => recallAnswer('off', url.searchParams.get('q')!),
    'GET /api/sessions/broken/recall': (url) => recallAnswer('broken', url.searchParams.get('q')!),
  });
  setApiBase(server.origin);
});
afterAll(() => server.close());

function ask(query: string) {
  fireEvent.change(screen.getByLabelText('Recall query'), { target: { value: query } });
  fireEvent.click(screen.getByRole('button', { name: 'Recall' }));
}

describe('RecallBox', () => {
  it('asks nothing until a query is submitted, then shows hits with neighbours, role, score, time', async () => {
    renderWithClient(<RecallBox sessionId="trip" configured />);
    expect(screen.getByRole('button', { name: 'Recall' })).toHaveProperty('disabled', true);
    expect(server.requests.filter((r) => r.includes('/trip/recall'))).toEqual([]);
    ask('  when does my passport expire ');
    const hit = await screen.findByRole('article', { name: 'User message #5, a match' });
    expect(server.requests).toContain(
      'GET /api/sessions/trip/recall?q=when+does+my+passport+expire',
    );
    // User text stays text: no element is made from it.
    expect(within(hit).getByText('<img src=x onerror=alert(1)> passport ZX-4471')).toBeTruthy();
    expect(hit.querySelector('img')).toBeNull();
    expect(within(hit).getByText('score 0.81')).toBeTruthy();
    expect(within(hit).getByText(/2026/).getAttribute('datetime')).toBe(at);
    const first = screen.getByRole('region', { name: 'Recalled from this session' });
    expect(
      within(first)
        .getAllByRole('article')
        .map((card) => card.getAttribute('aria-label')),
    ).toEqual([
      'Assistant message #4, a neighbour',
      'User message #5, a match',
      'Assistant message #6, a neighbour',
    ]);
    expect(screen.getByRole('region', { name: 'Recalled from trip-2024' })).toBeTruthy();
    expect(screen.getByText(/2 matches in 2 ranges/)).toBeTruthy();
  });

  it('says so when nothing would be recalled', async () => {
    renderWithClient(<RecallBox sessionId="quiet" configured />);
    ask('anything');
    expect((await screen.findByText(/Nothing would be recalled/)).textContent).toContain(
      '“anything”',
    );
  });

  it('shows a 501 as "recall is not configured" with the variable to set', async () => {
    renderWithClient(<RecallBox sessionId="off" configured />);
    ask('hello');
    const notice = await screen.findByText(/Recall is not configured/);
    expect(notice.closest('[role=status]')!.textContent).toContain('MEMORY_RECALL_EMBEDDER');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says recall is off before anything is asked when the server reports it', () => {
    renderWithClient(<RecallBox sessionId="off" configured={false} />);
    expect(screen.getByText(/Recall is not configured/)).toBeTruthy();
  });

  it('shows other failures as an error with the server code and a retry', async () => {
    renderWithClient(<RecallBox sessionId="broken" configured />);
    ask('hello');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not recall');
    expect(alert.textContent).toContain('store down');
    const before = server.requests.filter((r) => r.includes('/broken/recall')).length;
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(server.requests.filter((r) => r.includes('/broken/recall')).length).toBe(before + 1),
    );
  });
});
