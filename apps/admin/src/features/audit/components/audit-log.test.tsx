import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { AuditEntryView } from '../../../lib/api-types';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { AuditLog } from './audit-log';

let server: FixtureServer | null = null;
afterEach(async () => {
  await server?.close();
  setApiBase('');
});

const entry = (n: number, overrides: Partial<AuditEntryView> = {}): AuditEntryView => ({
  id: String(n),
  at: new Date(Date.now() - n * 60_000).toISOString(),
  actor: { name: 'oncall', role: 'operator' },
  action: 'POST /api/sessions/:id/messages',
  sessionId: `s-${n}`,
  resource: null,
  status: 201,
  code: null,
  ...overrides,
});

describe('the audit log view', () => {
  it('lists entries newest first, pages back, and opens a session', async () => {
    server = await startFixtureServer({
      'GET /api/audit': (url) =>
        url.searchParams.get('after') === '2'
          ? { body: { items: [entry(3, { resource: 'tenant-9', sessionId: null })], next: null } }
          : {
              body: {
                items: [
                  entry(1, {
                    actor: { name: 'dash', role: 'viewer' },
                    action: 'DELETE /api/sessions/:id',
                    status: 403,
                    code: 'FORBIDDEN_ROLE',
                  }),
                  entry(2),
                ],
                next: '2',
              },
            },
    });
    setApiBase(server.origin);
    const opened: string[] = [];
    renderWithClient(<AuditLog onOpen={(session) => opened.push(session)} />);
    await screen.findByText('DELETE /api/sessions/:id');
    const rows = () =>
      screen
        .getAllByRole('row')
        .slice(1)
        .map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => cell.textContent));
    expect(rows()).toEqual([
      ['dash · viewer', 'DELETE /api/sessions/:id', 's-1', '403 FORBIDDEN_ROLE'],
      ['oncall · operator', 'POST /api/sessions/:id/messages', 's-2', '201'],
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByText('resource tenant-9');
    expect(rows()).toHaveLength(3);
    expect(screen.getByText(/end of the log/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 's-2' }));
    expect(opened).toEqual(['s-2']);
    expect(server.requests).toEqual(['GET /api/audit?limit=50', 'GET /api/audit?limit=50&after=2']);
  });
});
