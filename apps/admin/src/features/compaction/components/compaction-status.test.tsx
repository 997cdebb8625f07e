import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, setApiBase } from '../../../lib/api-client';
import type { CompactionJob } from '../../../lib/api-types';
import { renderWithClient } from '../../../test/render';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { CompactPanel } from './compact-panel';
import { CompactionStatus } from './compaction-status';

const base: CompactionJob = {
  id: 'job-1',
  sessionId: 's1',
  force: false,
  dryRun: false,
  state: 'queued',
  createdAt: new Date().toISOString(),
};

describe('CompactionStatus', () => {
  it('shows queued and running as progress', () => {
    const { rerender } = render(<CompactionStatus job={base} summarizer="extractive" />);
    expect(screen.getByRole('status').textContent).toContain('Compaction queued…');
    rerender(<CompactionStatus job={{ ...base, state: 'running' }} summarizer="extractive" />);
    expect(screen.getByRole('status').textContent).toContain('Compaction running…');
  });

  it('shows the result: new boundary, tokens before and after, summariser and summary', () => {
    render(
      <CompactionStatus
        job={{
          ...base,
          state: 'done',
          finishedAt: new Date().toISOString(),
          result: {
            compacted: true,
            upTo: 40,
            tokensBefore: 12000,
            tokensAfter: 3000,
            snapshot: { summary: 'the customer wants a refund', pinned: [] },
          },
        }}
        summarizer="extractive (offline)"
      />,
    );
    const status = screen.getByRole('status');
    expect(status.textContent).toContain('Compacted');
    expect(status.textContent).toContain('messages up to #40 (the new boundary)');
    expect(status.textContent).toContain('12,000 → 3,000 tokens (−75%)');
    expect(status.textContent).toContain('extractive (offline)');
    expect(screen.getByText('the customer wants a refund')).toBeTruthy();
  });

  it('marks a dry run as saving nothing and opens the summary it would save', () => {
    render(
      <CompactionStatus
        job={{
          ...base,
          dryRun: true,
          state: 'done',
          result: {
            compacted: false,
            upTo: 12,
            tokensBefore: 900,
            tokensAfter: 300,
            snapshot: { summary: 'draft' },
          },
        }}
        summarizer={null}
      />,
    );
    expect(screen.getByText('Dry run done')).toBeTruthy();
    expect(screen.getByText('nothing (dry run)')).toBeTruthy();
    expect(screen.getByText('draft').closest('details')!.open).toBe(true);
  });

  it('explains why nothing was saved: below the threshold, or a conflict', () => {
    const { rerender } = render(
      <CompactionStatus
        job={{
          ...base,
          state: 'done',
          result: {
            compacted: false,
            reason: 'below-threshold',
            tokensBefore: 500,
            tokensAfter: 500,
          },
        }}
        summarizer={null}
      />,
    );
    expect(screen.getByRole('status').textContent).toMatch(/below the compaction threshold.*Force/);
    rerender(
      <CompactionStatus
        job={{
          ...base,
          state: 'done',
          result: { compacted: false, reason: 'conflict', tokensBefore: 500, tokensAfter: 500 },
        }}
        summarizer={null}
      />,
    );
    expect(screen.getByRole('status').textContent).toContain(
      'another writer saved a snapshot first (conflict)',
    );
  });

  it('says when a summary would not shrink the context (no gain), on a dry run too', () => {
    const noGain = {
      compacted: false,
      reason: 'no-gain' as const,
      upTo: 8,
      tokensBefore: 145,
      tokensAfter: 163,
      snapshot: { summary: 'a long summary' },
    };
    const { rerender } = render(
      <CompactionStatus job={{ ...base, state: 'done', result: noGain }} summarizer={null} />,
    );
    let status = screen.getByRole('status');
    expect(status.textContent).toContain('Compaction done');
    expect(status.textContent).toContain('would not make the context smaller (no gain)');
    expect(status.textContent).toContain('145 → 163 tokens');
    expect(screen.getByText('Summary (not saved)')).toBeTruthy();
    rerender(
      <CompactionStatus
        job={{ ...base, dryRun: true, state: 'done', result: noGain }}
        summarizer={null}
      />,
    );
    status = screen.getByRole('status');
    expect(status.textContent).toContain('Dry run done');
    expect(status.textContent).toContain('(no gain)');
    expect(status.textContent).not.toContain('nothing (dry run)');
  });

  it('shows failures with the error: an LLM failure, a conflict, a refused start', () => {
    const { rerender } = render(
      <CompactionStatus
        job={{
          ...base,
          state: 'failed',
          error: { name: 'LlmRequestError', message: 'LLM answered 500: upstream overloaded' },
        }}
        summarizer="LLM (gpt-4o-mini)"
      />,
    );
    let alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Compaction failed');
    expect(alert.textContent).toContain('The summariser (LLM) call failed. Nothing was changed.');
    expect(alert.textContent).toContain('LlmRequestError: LLM answered 500: upstream overloaded');
    rerender(
      <CompactionStatus
        job={{
          ...base,
          state: 'failed',
          error: {
            name: 'SnapshotConflictError',
            code: 'SNAPSHOT_CONFLICT',
            message: 'lost the race',
          },
        }}
        summarizer={null}
      />,
    );
    alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Another writer saved a snapshot first (conflict).');
    expect(alert.textContent).toContain('SnapshotConflictError (SNAPSHOT_CONFLICT): lost the race');
    rerender(
      <CompactionStatus
        job={null}
        startError={new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down')}
        summarizer={null}
      />,
    );
    alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Could not start the compaction');
    expect(alert.textContent).toContain('SHUTTING_DOWN');
  });
});

describe('CompactPanel', () => {
  let server: FixtureServer;
  let polls = 0;
  let body: unknown = null;

  beforeAll(async () => {
    server = await startFixtureServer({
      'POST /api/sessions/s1/compact': (_url, request) => {
        let raw = '';
        request.on('data', (chunk) => (raw += chunk));
        request.on('end', () => (body = JSON.parse(raw)));
        return { status: 202, body: { jobId: 'job-7' } };
      },
      'GET /api/compactions/job-7': () => {
        polls += 1;
        const state = polls === 1 ? 'queued' : polls === 2 ? 'running' : 'done';
        return {
          body: {
            ...base,
            id: 'job-7',
            force: true,
            dryRun: false,
            state,
            ...(state === 'done'
              ? {
                  result: {
                    compacted: true,
                    upTo: 9,
                    tokensBefore: 800,
                    tokensAfter: 200,
                    snapshot: { summary: 'short' },
                  },
                }
              : {}),
          },
        };
      },
    });
    setApiBase(server.origin);
  });

  afterAll(async () => {
    await server.close();
    setApiBase('');
  });

  it('offers no "Compact now" to a token that may not compact (a viewer)', () => {
    const view = renderWithClient(
      <CompactPanel
        sessionId="s-viewer"
        summarizer="extractive (offline)"
        lastCompaction={null}
        mayCompact={false}
        onSettled={() => undefined}
      />,
    );
    expect(screen.queryByRole('button', { name: 'Compact now' })).toBeNull();
    expect(screen.queryByLabelText(/Force/)).toBeNull();
    view.unmount();
  });

  it('starts a forced job, polls it through queued and running to done, and keeps the result', async () => {
    const settled: CompactionJob[] = [];
    renderWithClient(
      <CompactPanel
        sessionId="s1"
        summarizer="extractive (offline)"
        lastCompaction={null}
        onSettled={(job) => settled.push(job)}
      />,
    );
    fireEvent.click(screen.getByLabelText(/Force/));
    fireEvent.click(screen.getByRole('button', { name: 'Compact now' }));
    await screen.findByText(/Compaction (queued|running)…/);
    expect(screen.getByRole('button', { name: 'Compacting…' })).toHaveProperty('disabled', true);
    await screen.findByText('Compacted', {}, { timeout: 5000 });
    expect(body).toEqual({ dryRun: false, force: true });
    expect(polls).toBeGreaterThanOrEqual(3);
    await waitFor(() => expect(settled.map((job) => job.state)).toEqual(['done']));
    expect(screen.getByRole('button', { name: 'Compact now' })).toHaveProperty('disabled', false);
    // Force was for that job only: the next one respects the threshold unless ticked again.
    expect(screen.getByLabelText(/Force/)).toHaveProperty('checked', false);

    // The last result stays on the session (for this tab), also after the panel remounts.
    const again = renderWithClient(
      <CompactPanel
        sessionId="s1"
        summarizer={null}
        lastCompaction={null}
        onSettled={() => undefined}
      />,
    );
    expect(again.container.textContent).toContain('messages up to #9 (the new boundary)');
  });

  it("shows the server's record of the last compaction in a fresh tab, and the newer of the two", () => {
    const finished = new Date(Date.now() - 120_000).toISOString();
    const fromServer: CompactionJob = {
      ...base,
      id: 'other-tab-job',
      sessionId: 'fresh',
      state: 'done',
      createdAt: finished,
      finishedAt: finished,
      result: { compacted: true, upTo: 31, tokensBefore: 8000, tokensAfter: 2000 },
    };
    const fresh = renderWithClient(
      <CompactPanel
        sessionId="fresh"
        summarizer={null}
        lastCompaction={fromServer}
        onSettled={() => undefined}
      />,
    );
    const status = fresh.getByRole('status');
    expect(status.textContent).toContain('messages up to #31 (the new boundary)');
    expect(status.textContent).toContain('2 minutes ago');
    fresh.unmount();
    // This tab's own job is newer: it wins over an older server record.
    window.sessionStorage.setItem(
      'agent-memory.last-compaction.fresh',
      JSON.stringify({
        ...fromServer,
        id: 'tab-job',
        createdAt: new Date().toISOString(),
        result: { ...fromServer.result, upTo: 40 },
      }),
    );
    const mine = renderWithClient(
      <CompactPanel
        sessionId="fresh"
        summarizer={null}
        lastCompaction={fromServer}
        onSettled={() => undefined}
      />,
    );
    expect(mine.getByRole('status').textContent).toContain('messages up to #40');
  });
});
