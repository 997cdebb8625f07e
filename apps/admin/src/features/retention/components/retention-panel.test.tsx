import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { RetentionSweepView, RetentionView } from '../../../lib/api-types';
import { renderWithClient } from '../../../test/render';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { RetentionPanel } from './retention-panel';

let view: RetentionView;
let sweep: RetentionSweepView;
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/retention': () => ({ body: view }),
    'POST /api/retention/sweep': () => ({ body: sweep }),
  });
  setApiBase(server.origin);
});
afterAll(() => server.close());

function open() {
  const utils = renderWithClient(<RetentionPanel />);
  const summary = screen.getByText('Retention');
  const details = summary.closest('details')!;
  details.open = true;
  fireEvent(details, new Event('toggle'));
  return utils;
}

describe('RetentionPanel', () => {
  it('asks nothing until opened, then shows the policy and lists what a dry run would expire', async () => {
    view = {
      policy: {
        maxIdle: '30d',
        maxIdleMs: 2_592_000_000,
        maxAge: null,
        maxAgeMs: null,
        action: 'delete',
      },
      sweepIntervalMs: 3_600_000,
      nextSweepAt: new Date(Date.now() + 600_000).toISOString(),
    };
    sweep = { expired: ['old-chat', 'older-chat'], action: 'delete', dryRun: true };
    const before = server.requests.length;
    const { unmount } = renderWithClient(<RetentionPanel />);
    expect(server.requests.length).toBe(before);
    unmount();

    open();
    expect(await screen.findByText(/Sessions idle longer than 30d are deleted\./)).toBeTruthy();
    expect(screen.getByText(/Next sweep/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    expect(await screen.findByText(/would expire 2 sessions \(deleted/)).toBeTruthy();
    expect(screen.getByText('old-chat')).toBeTruthy();
    expect(screen.getByText('older-chat')).toBeTruthy();
    await waitFor(() => expect(server.requests).toContain('POST /api/retention/sweep'));
  });

  it('says when a dry run would expire nothing', async () => {
    view = {
      policy: {
        maxIdle: null,
        maxIdleMs: null,
        maxAge: '1w',
        maxAgeMs: 604_800_000,
        action: 'keep-summary',
      },
      sweepIntervalMs: 3_600_000,
      nextSweepAt: null,
    };
    sweep = { expired: [], action: 'keep-summary', dryRun: true };
    open();
    expect(await screen.findByText(/older than 1w are reduced to their summary/)).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: 'Dry run' }).at(-1)!);
    expect(await screen.findByText('A sweep now would expire no session.')).toBeTruthy();
  });

  it('names the variables when retention is off', async () => {
    view = { policy: null, sweepIntervalMs: null, nextSweepAt: null };
    open();
    expect(await screen.findAllByText('MEMORY_RETENTION_MAX_IDLE')).not.toHaveLength(0);
  });
});
