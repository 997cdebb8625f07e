import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storeToken } from '../features/auth/token-storage';
import { setApiBase } from '../lib/api-client';
import { earlyLoad } from '../lib/early-load';
import { startFixtureServer, type FixtureServer } from '../test/fixture-server';
import { prefetchFirstView } from './prefetch';

const page = { items: [], next: null };

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/sessions': () => ({ body: page }),
    'GET /api/sessions/s1': () => ({ body: { id: 's1' } }),
    'GET /api/sessions/s1/transcript': () => ({ body: page }),
    'GET /api/info': () => ({ body: { backend: 'simple' } }),
  });
  setApiBase(server.origin);
});
afterAll(async () => {
  await server.close();
  setApiBase('');
});
afterEach(async () => {
  // Every call answered before the next test counts the server's requests.
  await Promise.allSettled([...earlyLoad().requests.values()].map((get) => get.response));
  earlyLoad().requests.clear();
  window.history.replaceState(null, '', '/');
});

const started = () =>
  [...earlyLoad().requests.keys()].map((url) => url.slice(server.origin.length));

describe("the first view's early calls", () => {
  it("asks for a session's log alone, then for its details and the server's info", async () => {
    storeToken('tok-1');
    window.history.replaceState(null, '', '/?session=s1');
    const { firstRows } = prefetchFirstView();
    expect(started()).toEqual(['/api/sessions/s1/transcript?limit=100']);
    await firstRows;
    expect(started()).toEqual([
      '/api/sessions/s1/transcript?limit=100',
      '/api/sessions/s1',
      '/api/info',
    ]);
  });

  it('starts the rest at once when the app starts first, and only once', async () => {
    storeToken('tok-1');
    const before = server.requests.length;
    const { firstRows, startRest } = prefetchFirstView();
    startRest();
    expect(started()).toEqual(['/api/sessions?limit=50', '/api/info']);
    await firstRows;
    startRest();
    expect(server.requests.slice(before).sort()).toEqual([
      'GET /api/info',
      'GET /api/sessions?limit=50',
    ]);
  });

  it('asks for nothing without a token (the sign-in shows)', async () => {
    const { firstRows, startRest } = prefetchFirstView();
    startRest();
    await firstRows;
    expect(started()).toEqual([]);
  });
});
