import { screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { SessionsList } from './sessions-list';

const LONG_ID = `run-${'x'.repeat(120)}`;
let server: FixtureServer;

beforeAll(async () => {
  const row = (id: string, meta: Record<string, string>) => ({
    id,
    messages: 1234,
    stored: 56,
    updatedAt: new Date().toISOString(),
    hasSnapshot: true,
    snapshotUpTo: 40,
    meta,
  });
  server = await startFixtureServer({
    'GET /api/sessions': () => ({
      body: { items: [row('titled', { title: 'Refund' }), row(LONG_ID, {})], next: null },
    }),
    'GET /api/context-tokens': () => ({ body: { titled: 3456, [LONG_ID]: 78 } }),
  });
  setApiBase(server.origin);
});

afterAll(async () => {
  await server.close();
  setApiBase('');
});

describe('the sessions list', () => {
  it("shows an untitled session's id where a titled one has it, and every row's key numbers", async () => {
    renderWithClient(
      <SessionsList
        search=""
        shown={null}
        onSearch={() => undefined}
        onShown={() => undefined}
        onOpen={() => undefined}
      />,
    );
    const untitled = (await screen.findByText(LONG_ID)).closest('tr')!;
    expect(untitled.querySelector('.id-line code')!.textContent).toBe(LONG_ID);
    expect(untitled.querySelector('.cell-title a')!.textContent).toBe('Untitled');
    const titled = screen.getByText('Refund').closest('tr')!;
    expect(titled.querySelector('.id-line code')!.textContent).toBe('titled');
    // Under the id, for a phone where the number columns are hidden.
    await waitFor(() =>
      expect(titled.querySelector('.row-numbers')!.textContent).toBe(
        '1,234 messages · 56 stored · 3,456 tok · snapshot',
      ),
    );
  });
});
