import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { Message, StoredSnapshot, TranscriptEntry } from '../../../lib/api-types';
import { renderWithClient } from '../../../test/render';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { Transcript } from './transcript';

const text = (value: string) => ({ type: 'text' as const, text: value });
const task: Message = { role: 'user', parts: [text('Refund order 4711')] };
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const log: Message[] = [
  task,
  {
    role: 'assistant',
    parts: [{ type: 'reasoning', text: 'check the ledger first' }],
    toolCalls: [
      { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"order":4711}' } },
    ],
  },
  { role: 'tool', parts: [text('ledger: two charges')], toolCallId: 'c1' },
  {
    role: 'user',
    parts: [
      text('<b>not bold</b>'),
      { type: 'image_base64', imageBase64: PNG, mimeType: 'image/png' },
    ],
  },
  {
    role: 'assistant',
    parts: [],
    toolCalls: [{ id: 'c2', type: 'function', function: { name: 'refund', arguments: '{}' } }],
  },
  { role: 'tool', parts: [text('payments timed out')], toolCallId: 'c2', toolError: true },
  { role: 'assistant', parts: [text('Refund queued.')] },
];
const snapshot: StoredSnapshot = {
  summary: 'Customer wants a refund; ledger shows two charges.',
  pinned: [task],
  upTo: 3,
  createdAt: new Date().toISOString(),
};
const entries = (): TranscriptEntry[] =>
  log.map((message, index) => ({
    cursor: index + 1,
    message,
    covered: index + 1 <= snapshot.upTo,
    tokens: 10 + index,
  }));

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/sessions/s1/transcript': (url) => {
      const after = Number(url.searchParams.get('after') ?? 0);
      const rest = entries().filter((entry) => entry.cursor > after);
      // Pages of 4, whatever the client asks, to exercise paging.
      const items = rest.slice(0, 4);
      return { body: { items, next: rest.length > 4 ? items[3]!.cursor : null } };
    },
  });
  setApiBase(server.origin);
});

afterAll(async () => {
  await server.close();
  setApiBase('');
});

describe('Transcript', () => {
  it('draws the log as a conversation with the snapshot boundary, folded tools and token counts', async () => {
    const { container } = renderWithClient(
      <Transcript sessionId="s1" snapshot={snapshot} summaryTokens={42} messagesEver={7} />,
    );
    // First page (#1–#4): the covered messages, then the boundary before #4.
    await screen.findByRole('region', { name: 'Snapshot boundary' });
    expect(screen.getAllByText('covered')).toHaveLength(2);
    fireEvent.click(screen.getByRole('button', { name: 'Load later messages' }));
    await screen.findByText('Refund queued.');
    expect(screen.getByText('End of the log')).toBeTruthy();

    const boundary = screen.getByRole('region', { name: 'Snapshot boundary' });
    expect(boundary.textContent).toContain('Messages 1–3 covered: 33 tokens summarised to 42');
    expect(within(boundary).getByText(snapshot.summary)).toBeTruthy();
    expect(within(boundary).getByText('pinned')).toBeTruthy();
    // The boundary sits between the last covered message (#3 folded into #2) and #4.
    const order = [...container.querySelectorAll('[data-cursor], .boundary')].map((node) =>
      node.classList.contains('boundary') ? 'boundary' : node.getAttribute('data-cursor'),
    );
    expect(order).toEqual(['1', '2', 'boundary', '4', '5', '7']);

    // Covered messages are dimmed; the logged task is badged as pinned.
    const first = container.querySelector('[data-cursor="1"]')!;
    expect(first.classList.contains('message-covered')).toBe(true);
    expect(within(first as HTMLElement).getByText('pinned')).toBeTruthy();
    expect(
      container.querySelector('[data-cursor="4"]')!.classList.contains('message-covered'),
    ).toBe(false);

    // Tool results fold into their calls; the failed one is marked.
    const lookup = screen.getByText('lookup').closest('details')!;
    expect(lookup.open).toBe(false);
    expect(within(lookup).getByText('ledger: two charges')).toBeTruthy();
    const refund = screen.getByText('refund').closest('details')!;
    expect(within(refund).getByText('error')).toBeTruthy();
    expect(refund.classList.contains('tool-call-error')).toBe(true);

    // Reasoning is collapsed; images are thumbnails; HTML in content stays text.
    const reasoning = screen.getByText('Reasoning').closest('details')!;
    expect(reasoning.open).toBe(false);
    const image = container.querySelector('img')!;
    expect(image.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
    expect(screen.getByText('<b>not bold</b>')).toBeTruthy();
    expect(container.querySelector('b')).toBeNull();

    // Each message shows its token count.
    expect(
      within(container.querySelector('[data-cursor="7"]') as HTMLElement).getByText('16 tok'),
    ).toBeTruthy();
  });

  it('shows messages saved meanwhile as a pill, and appends them only when asked', async () => {
    const view = renderWithClient(
      <Transcript sessionId="s1" snapshot={null} summaryTokens={null} messagesEver={7} />,
    );
    await screen.findByText('Refund order 4711');
    fireEvent.click(screen.getByRole('button', { name: 'Load later messages' }));
    await screen.findByText('Refund queued.');
    expect(screen.queryByText(/new message/)).toBeNull();

    log.push(
      { role: 'user', parts: [text('one more thing')] },
      { role: 'assistant', parts: [text('sure')] },
    );
    view.rerenderWithClient(
      <Transcript sessionId="s1" snapshot={null} summaryTokens={null} messagesEver={9} />,
    );
    const pill = await screen.findByRole('button', { name: /2 new messages/ });
    expect(screen.queryByText('one more thing')).toBeNull();
    fireEvent.click(pill);
    await screen.findByText('one more thing');
    expect(screen.getByText('sure')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText(/new message/)).toBeNull());
    expect(server.requests).toContain('GET /api/sessions/s1/transcript?after=7&limit=100');
  });

  it('jumps to the latest message by loading the rest in large pages, and back to the start', async () => {
    renderWithClient(
      <Transcript sessionId="s1" snapshot={null} summaryTokens={null} messagesEver={log.length} />,
    );
    await screen.findByText('Refund order 4711');
    const last = log[log.length - 1]!.parts[0]!;
    expect(screen.queryByText((last as { text: string }).text)).toBeNull();
    const jumps = screen.getByRole('navigation', { name: 'Move in the log' });
    const latest = within(jumps).getByRole('button', { name: /Jump to latest/ });
    latest.focus();
    expect(document.activeElement).toBe(latest);
    fireEvent.click(latest);
    await screen.findByText((last as { text: string }).text);
    expect(screen.getByText('End of the log')).toBeTruthy();
    expect(server.requests).toContain('GET /api/sessions/s1/transcript?after=4&limit=500');
    expect(within(jumps).getByText(`${log.length} loaded`)).toBeTruthy();
    expect(within(jumps).getByRole('button', { name: /Jump to start/ })).toBeTruthy();
  });
});
