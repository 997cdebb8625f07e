/**
 * The dashboard's files at `/` next to the API: client-side paths get `index.html`, whose inline
 * script the content-security policy allows by its hash, hashed assets are cached for a year, and
 * API errors stay API errors (a malformed JSON body is a 400, not a 404).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from './support/api-test-server';

/** The build inlines its early-load script into index.html (non-ASCII text included). */
const INLINE_SCRIPT = 'document.title = "first rows – drawn early…";';

describe('dashboard files served by the admin server', () => {
  let dist: string;
  let api: TestServer;

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'agent-memory-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(
      join(dist, 'index.html'),
      `<!doctype html><title>dashboard</title><script>${INLINE_SCRIPT}</script>` +
        '<script type="module" crossorigin src="/assets/index-abc123.js"></script>',
    );
    writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
    const app = 'console.log("the app");'.repeat(50);
    writeFileSync(join(dist, 'assets', 'boot-def456.js'), app);
    writeFileSync(join(dist, 'assets', 'boot-def456.js.br'), brotliCompressSync(app));
    writeFileSync(join(dist, 'assets', 'boot-def456.js.gz'), gzipSync(app));
    api = await startTestServer({ MEMORY_BACKEND: 'simple' }, { adminDistDir: dist });
  });

  afterAll(async () => {
    await api?.dispose();
    rmSync(dist, { recursive: true, force: true });
  });

  it('serves index.html at / and for client-side paths, revalidated on each load', async () => {
    for (const path of ['/', '/?session=abc', '/some/client/path']) {
      const response = await api.request(path, { token: null });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<title>dashboard</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it("allows the page's inline script by its SHA-256, and no other inline script", async () => {
    const response = await api.request('/', { token: null });
    const policy = response.headers.get('content-security-policy') ?? '';
    const scriptSrc = /(?:^|;)script-src ([^;]*)/.exec(policy)?.[1]?.split(' ');
    // What the browser compares: the script's text as UTF-8, hashed, in base64.
    const hash = createHash('sha256').update(Buffer.from(INLINE_SCRIPT, 'utf8')).digest('base64');
    expect(scriptSrc).toEqual(["'self'", `'sha256-${hash}'`]);
  });

  it('caches hashed assets for a year', async () => {
    const response = await api.request('/assets/index-abc123.js', { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it("sends the build's precompressed twin the browser accepts, brotli first, as JavaScript", async () => {
    const plain = 'console.log("the app");'.repeat(50);
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      // Node's fetch decodes the body; the headers say what was sent.
      const response = await api.request('/assets/boot-def456.js', {
        token: null,
        headers: { 'accept-encoding': accept },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-encoding')).toBe(encoding);
      expect(response.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      expect(response.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await response.text()).toBe(plain);
    }
  });

  it('leaves /api and /health to the server: unknown routes 404 as JSON, bad bodies 400', async () => {
    const unknown = await api.request('/api/not-a-route');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).statusCode).toBe(404);
    const badJson = await api.request('/api/sessions/s1/messages', {
      method: 'POST',
      body: '{"messages": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ code: 'INVALID_BODY' });
    expect((await api.request('/health/live', { token: null })).status).toBe(200);
  });
});
