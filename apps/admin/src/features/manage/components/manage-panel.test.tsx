import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { AdminRole, RoleTable, SessionInfo } from '../../../lib/api-types';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { ManagePanel } from './manage-panel';

const session: SessionInfo = {
  id: 'demo',
  messages: 3,
  stored: 3,
  updatedAt: '2026-12-04T10:00:00.000Z',
  hasSnapshot: false,
  snapshotUpTo: null,
  meta: { title: 'Demo' },
};

/** The server's table as `GET /api/roles` serves it (the routes the panel calls). */
const SERVED: RoleTable = {
  roles: ['viewer', 'operator', 'admin'],
  routes: [
    { method: 'DELETE', pattern: '/api/sessions/:id', role: 'admin' },
    { method: 'POST', pattern: '/api/sessions/:id/clear', role: 'operator' },
    { method: 'PATCH', pattern: '/api/sessions/:id/meta', role: 'operator' },
  ],
};

let server: FixtureServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  setApiBase('');
});

/** The actions the panel offers to `role` once the server's `table` has loaded, by button text. */
async function offeredTo(role: AdminRole, table: RoleTable = SERVED): Promise<string[]> {
  server = await startFixtureServer({ 'GET /api/roles': () => ({ body: table }) });
  setApiBase(server.origin);
  const view = renderWithClient(
    <ManagePanel session={session} role={role} onChanged={() => {}} onDeleted={() => {}} />,
  );
  await waitFor(() => expect(view.client.getQueryData(['roles'])).toBeDefined());
  const offered = screen.getAllByRole('button').map((button) => button.textContent ?? '');
  view.unmount();
  await server.close();
  server = null;
  return offered;
}

describe('the manage panel', () => {
  it("offers each role only what the server's role table lets it do", async () => {
    expect(await offeredTo('viewer')).toEqual(['Export JSON', 'Export Markdown']);
    expect(await offeredTo('operator')).toEqual([
      'Save',
      'Save metadata',
      'Export JSON',
      'Export Markdown',
      'Clear…',
    ]);
    expect(await offeredTo('admin')).toEqual([
      'Save',
      'Save metadata',
      'Export JSON',
      'Export Markdown',
      'Clear…',
      'Delete…',
    ]);
  });

  it('follows the table, not a role written beside the buttons', async () => {
    // A server that lets viewers clear and keeps deleting for admins.
    const table: RoleTable = {
      ...SERVED,
      routes: SERVED.routes.map((route) =>
        route.pattern.endsWith('/clear') ? { ...route, role: 'viewer' } : route,
      ),
    };
    expect(await offeredTo('viewer', table)).toEqual(['Export JSON', 'Export Markdown', 'Clear…']);
  });

  it('offers nothing but export while the table has not loaded', () => {
    const view = renderWithClient(
      <ManagePanel session={session} role="admin" onChanged={() => {}} onDeleted={() => {}} />,
    );
    expect(screen.getAllByRole('button').map((button) => button.textContent)).toEqual([
      'Export JSON',
      'Export Markdown',
    ]);
    view.unmount();
  });
});
