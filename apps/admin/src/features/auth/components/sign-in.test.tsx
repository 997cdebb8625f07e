import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { takeTokenFromUrl, storedToken } from '../token-storage';
import { SignIn } from './sign-in';

const GOOD = 'right-token-0123456789';
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/info': (_url, request) =>
      request.headers.authorization === `Bearer ${GOOD}`
        ? { body: { backend: 'simple', compaction: {} } }
        : { status: 401, body: { statusCode: 401, code: 'UNAUTHORIZED', message: 'bad token' } },
  });
  setApiBase(server.origin);
});

afterAll(async () => {
  await server.close();
  setApiBase('');
});

describe('sign-in', () => {
  it('refuses a wrong token with a clear message and accepts the right one', async () => {
    const signedIn: string[] = [];
    render(<SignIn notice={null} onSignedIn={(token) => signedIn.push(token)} />);
    const input = screen.getByLabelText('Admin token');
    fireEvent.change(input, { target: { value: 'wrong-token' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'The server refused this token',
    );
    fireEvent.change(input, { target: { value: GOOD } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(signedIn).toEqual([GOOD]));
  });

  it('shows why it came back (a refused token)', () => {
    render(<SignIn notice="The server refused the admin token." onSignedIn={() => undefined} />);
    expect(screen.getByRole('alert').textContent).toBe('The server refused the admin token.');
  });

  it('takes ?token= from the address bar into the tab and removes it from the URL at once', () => {
    window.history.replaceState(null, '', '/?token=abc123&q=refund#top');
    expect(takeTokenFromUrl()).toBe('abc123');
    expect(window.location.search).toBe('?q=refund');
    expect(window.location.hash).toBe('#top');
    expect(storedToken()).toBe('abc123');
  });
});
