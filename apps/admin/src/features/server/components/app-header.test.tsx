import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setApiBase } from '../../../lib/api-client';
import type { ServerInfo } from '../../../lib/api-types';
import { startFixtureServer, type FixtureServer } from '../../../test/fixture-server';
import { renderWithClient } from '../../../test/render';
import { AppHeader } from './app-header';

const compaction: ServerInfo['compaction'] = {
  mode: 'inline',
  thresholdTokens: 4000,
  keepRecent: 6,
  summarizer: 'extractive',
  model: null,
};

let server: FixtureServer | null = null;
afterEach(async () => {
  await server?.close();
  setApiBase('');
});

async function headerWith(
  recall: ServerInfo['recall'],
  token?: ServerInfo['token'],
): Promise<HTMLElement> {
  server = await startFixtureServer({
    'GET /api/info': () => ({ body: { backend: 'postgres', compaction, recall, token } }),
    'GET /health/ready': () => ({ body: { status: 'ok' } }),
  });
  setApiBase(server.origin);
  renderWithClient(
    <AppHeader onHome={() => undefined} onAuditLog={() => undefined} onSignOut={() => undefined} />,
  );
  await screen.findByText('postgres');
  return screen.getByText('Recall').parentElement!;
}

describe('the header', () => {
  it('says recall is on, with its embedder and store', async () => {
    const recall = await headerWith({
      embedder: 'offline',
      store: 'pgvector',
      topK: 4,
      scope: 'resource',
    });
    expect(recall.querySelector('dd')!.textContent).toBe('on · offline · pgvector');
  });

  it('says recall is off when the server runs without it', async () => {
    const recall = await headerWith(null);
    expect(recall.querySelector('dd')!.textContent).toBe('off');
  });

  it("shows the signed-in token's name and role", async () => {
    await headerWith(null, { name: 'oncall', role: 'operator' });
    const signedIn = screen.getByText('Signed in').parentElement!;
    expect(signedIn.querySelector('dd')!.textContent).toBe('oncall · operator');
  });

  it('offers the audit log when the app gives it', async () => {
    await headerWith(null, { name: 'admin', role: 'admin' });
    expect(screen.getByRole('button', { name: 'Audit log' })).toBeTruthy();
  });
});
