/**
 * HTTP concerns that do not depend on the backend: CORS closed by default, the dashboard's files
 * served at `/` when they exist (and a server that starts fine without them).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './support/api-test-server';

describe('admin API over HTTP', () => {
  const servers: TestServer[] = [];
  const dirs: string[] = [];

  afterAll(async () => {
    for (const server of servers) await server.dispose();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function start(
    env: Record<string, string> = {},
    adminDistDir?: string,
  ): Promise<TestServer> {
    const server = await startTestServer({ MEMORY_BACKEND: 'simple', ...env }, { adminDistDir });
    servers.push(server);
    return server;
  }

  it('allows no cross-origin calls by default', async () => {
    const api = await start();
    const preflight = await api.request('/api/sessions', {
      method: 'OPTIONS',
      token: null,
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const get = await api.request('/api/sessions', { headers: { origin: 'http://evil.test' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the origins listed in CORS_ORIGINS, only those', async () => {
    const api = await start({ CORS_ORIGINS: 'http://dash.test' });
    const allowed = await api.request('/api/sessions', { headers: { origin: 'http://dash.test' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://dash.test');
    const other = await api.request('/api/sessions', { headers: { origin: 'http://evil.test' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the dashboard at / when it is built, without opening /api', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'agent-memory-admin-dist-'));
    dirs.push(dist);
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>agent-memory</title>');
    writeFileSync(join(dist, 'app.js'), 'console.log(1)');
    const api = await start({}, dist);

    const index = await api.request('/', { token: null });
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<title>agent-memory</title>');
    expect((await api.request('/app.js', { token: null })).headers.get('content-type')).toMatch(
      /javascript/,
    );
    const deepLink = await api.request('/sessions/abc', { token: null });
    expect(await deepLink.text()).toContain('<title>agent-memory</title>');

    const guarded = await api.request('/api/sessions', { token: null });
    expect(guarded.status).toBe(401);
    expect((await guarded.json()).code).toBe('UNAUTHORIZED');
    expect((await api.request('/api/nothing')).status).toBe(404);
    expect((await api.request('/health/live', { token: null })).status).toBe(200);
  });

  it('answers 422 CORRUPT_SESSION for a session file that does not decode, and leaves it alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-corrupt-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessions', 'broken.json'), '{"messages": [');
    const api = await start({ MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(dir, 'sessions') });
    const read = await api.request('/api/sessions/broken');
    expect(read.status).toBe(422);
    expect(await read.json()).toMatchObject({
      code: 'CORRUPT_SESSION',
      message: expect.stringContaining('broken'),
    });
    const write = await api.request('/api/sessions/broken/messages', {
      method: 'POST',
      json: { messages: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }] },
    });
    expect(write.status).toBe(422);
    expect(readFileSync(join(dir, 'sessions', 'broken.json'), 'utf8')).toBe('{"messages": [');
  });

  it('starts without a dashboard build and answers 404 JSON at /', async () => {
    const api = await start({}, join(tmpdir(), 'agent-memory-no-such-dist'));
    const root = await api.request('/', { token: null });
    expect(root.status).toBe(404);
    expect((await root.json()).code).toBe('NOT_FOUND');
  });
});
