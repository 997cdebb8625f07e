import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { SessionsList } from './sessions-list';

let server: FixtureServer;
const row = (id: string, resource: string) => ({
  id,
  messages: 2,
  stored: 2,
  updatedAt: new Date().toISOString(),
  hasSnapshot: false,
  snapshotUpTo: null,
  meta: { resource, title: id },
});

beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/sessions': (url) => ({
      body: {
        items: [row('ana-1', 'ana'), row('ben-1', 'ben')].filter(
          (r) =>
            !url.searchParams.get('resource') ||
            r.meta.resource === url.searchParams.get('resource'),
        ),
        next: null,
      },
    }),
    'GET /api/context-tokens': () => ({ body: {} }),
  });
  setApiBase(server.origin);
});

afterAll(async () => {
  await server.close();
  setApiBase('');
});

function Page() {
  const [resource, setResource] = useState('');
  return (
    <SessionsList
      search=""
      shown={null}
      resource={resource}
      onResource={setResource}
      aside={resource ? <p>actions for {resource}</p> : null}
      onSearch={() => undefined}
      onShown={() => undefined}
      onOpen={() => undefined}
    />
  );
}

describe('the sessions list filtered by resource', () => {
  it('asks the API for one resource’s sessions and shows the actions for it', async () => {
    const user = userEvent.setup();
    renderWithClient(<Page />);
    expect(await screen.findByText('ben-1', { selector: 'code' })).toBeTruthy();
    await user.type(screen.getByLabelText(/resource/), 'ana');
    await waitFor(() => expect(screen.queryByText('ben-1', { selector: 'code' })).toBeNull());
    expect(await screen.findByText('ana-1', { selector: 'code' })).toBeTruthy();
    expect(screen.getByText('actions for ana')).toBeTruthy();
    expect(server.requests.some((r) => r.includes('resource=ana'))).toBe(true);
  });
});
