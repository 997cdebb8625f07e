import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../test/fixture-server';
import { apiJson, setApiBase, setTokenSource, startEarlyGet, takeEarlyBody } from './api-client';

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({
    'GET /api/info': () => ({ body: { backend: 'simple' } }),
    'GET /api/sessions': (url) => ({
      body: { items: [], next: null, limit: url.searchParams.get('limit') },
    }),
  });
  setApiBase(server.origin);
});
afterAll(async () => {
  await server.close();
  setApiBase('');
  setTokenSource(() => null);
});

describe('early GETs', () => {
  it("the app's first call for the same URL and token takes the early response, once", async () => {
    startEarlyGet('/api/sessions', { limit: 50, after: null, search: undefined }, 'tok-1');
    setTokenSource(() => 'tok-1');
    const before = server.requests.length;
    const page = await apiJson<{ limit: string }>('/api/sessions', {
      query: { limit: 50, after: null, search: undefined },
    });
    expect(page.limit).toBe('50');
    expect(server.requests.slice(before)).toEqual(['GET /api/sessions?limit=50']);
    await apiJson('/api/sessions', { query: { limit: 50 } });
    expect(server.requests.slice(before)).toHaveLength(2);
  });

  it('hands the body to the early view and still to the app, from one request', async () => {
    const early = startEarlyGet('/api/sessions', { limit: 7, after: null }, 'tok-2');
    setTokenSource(() => 'tok-2');
    const before = server.requests.length;
    expect(await early).toMatchObject({ items: [], limit: '7' });
    const page = await apiJson<{ limit: string }>('/api/sessions', {
      query: { limit: 7, after: null },
    });
    expect(page.limit).toBe('7');
    expect(server.requests.slice(before)).toEqual(['GET /api/sessions?limit=7']);
  });

  it('another token asks again', async () => {
    startEarlyGet('/api/info', undefined, 'tok-old');
    setTokenSource(() => 'tok-new');
    const before = server.requests.length;
    await apiJson('/api/info');
    expect(server.requests.slice(before)).toEqual(['GET /api/info', 'GET /api/info']);
  });

  it('hands over the parsed body once it has arrived, once; the next call asks the server', async () => {
    const query = { limit: 9, after: null };
    const early = startEarlyGet('/api/sessions', query, 'tok-3');
    // Not arrived yet: nothing to take, the response stays for the app's own call.
    expect(takeEarlyBody('/api/sessions', query, 'tok-3')).toBeUndefined();
    await early;
    const before = server.requests.length;
    expect(takeEarlyBody('/api/sessions', query, 'tok-3')).toMatchObject({ limit: '9' });
    expect(takeEarlyBody('/api/sessions', query, 'tok-3')).toBeUndefined();
    setTokenSource(() => 'tok-3');
    await apiJson('/api/sessions', { query });
    expect(server.requests.slice(before)).toEqual(['GET /api/sessions?limit=9']);
  });
});
