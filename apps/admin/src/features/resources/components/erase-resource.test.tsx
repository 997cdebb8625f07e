import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { EraseResource } from './erase-resource';

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    'DELETE /api/resources/ana%40example.test': () => ({
      body: {
        resource: 'ana@example.test',
        sessions: 3,
        messages: 1204,
        vectors: 1,
        erasedAt: '2026-12-04T16:20:00.000Z',
      },
    }),
    'DELETE /api/resources/down': () => ({
      status: 503,
      body: {
        statusCode: 503,
        code: 'BACKEND_UNAVAILABLE',
        message: 'the memory backend is unreachable',
      },
    }),
  });
  setApiBase(server.origin);
});

afterAll(async () => {
  await server.close();
  setApiBase('');
});

describe('Erase resource', () => {
  it('erases only once the resource name is typed, then shows the receipt', async () => {
    const user = userEvent.setup();
    renderWithClient(<EraseResource resource="ana@example.test" />);
    await user.click(screen.getByRole('button', { name: 'Erase resource…' }));
    const erase = screen.getByRole<HTMLButtonElement>('button', { name: 'Erase resource' });
    await user.type(screen.getByLabelText(/to confirm/), 'ana@example');
    expect(erase.disabled).toBe(true);
    await user.keyboard('{Enter}');
    expect(server.requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);

    await user.type(screen.getByLabelText(/to confirm/), '.test');
    await user.click(erase);

    const receipt = await screen.findByRole('status');
    expect(receipt.textContent).toContain(
      'Erased ana@example.test: 3 sessions, 1,204 messages, 1 recall vector.',
    );
    expect(receipt.querySelector('time')!.getAttribute('dateTime')).toBe(
      '2026-12-04T16:20:00.000Z',
    );
    expect(server.requests).toContain('DELETE /api/resources/ana%40example.test');
  });

  it('says what failed, with the server code, and keeps the confirmation open', async () => {
    const user = userEvent.setup();
    renderWithClient(<EraseResource resource="down" />);
    await user.click(screen.getByRole('button', { name: 'Erase resource…' }));
    await user.type(screen.getByLabelText(/to confirm/), 'down');
    await user.click(screen.getByRole('button', { name: 'Erase resource' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not erase down.');
    expect(alert.textContent).toContain('BACKEND_UNAVAILABLE');
    await waitFor(() =>
      expect(
        screen.getByRole<HTMLButtonElement>('button', { name: 'Erase resource' }).disabled,
      ).toBe(false),
    );
  });
});
