/**
 * What an attacker or a broken client meets, on a real listening server: bodies that do not parse
 * are 400 INVALID_BODY after the token check (no stack trace, no backend check), unknown /api
 * routes are 401 without the token, security headers everywhere and no-store on /api, readiness
 * that names the dependency without its address, a refused example token, and a block after
 * repeated wrong tokens.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startApiServer } from '../src/api.server';
import { ConfigValidationError } from '../src/config/api-config';
import { MemoryMetrics } from '../src/metrics/memory-metrics';
import { startThrowawayPostgres, type ThrowawayServer } from '@agent-memory/test-support/services';
import { backendEnv, startTestServer, type TestServer } from './support/api-test-server';
import { RecordingLogger } from './support/recording-logger';

function postRaw(api: TestServer, body: Buffer | string, headers: Record<string, string>) {
  return api.request('/api/sessions/s1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

describe('admin API hardening', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  describe('on the JSON-file backend', () => {
    let api: TestServer;
    let dir: string;
    const logger = new RecordingLogger();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'agent-memory-hardening-'));
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>dashboard</title>');
      api = await startTestServer(
        { MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(dir, 'sessions') },
        // With the dashboard built, its static-file handler sits in front of every error.
        { adminDistDir: join(dir, 'dist'), logger },
      );
      cleanups.push(async () => {
        await api.dispose();
        rmSync(dir, { recursive: true, force: true });
      });
    });

    it('answers bodies that do not parse with 400 INVALID_BODY, with no stack trace and no backend check', async () => {
      const cases: [string, Buffer | string, Record<string, string>][] = [
        ['not gzip', Buffer.from('plain text, not gzip'), { 'content-encoding': 'gzip' }],
        ['cut gzip', gzipSync('{"messages":[]}').subarray(0, 12), { 'content-encoding': 'gzip' }],
        ['not deflate', Buffer.from('nope'), { 'content-encoding': 'deflate' }],
        ['not JSON', '{"messages": [', {}],
        ['not JSON, gzipped', gzipSync('{"messages": ['), { 'content-encoding': 'gzip' }],
      ];
      for (const [label, body, headers] of cases) {
        const response = await postRaw(api, body, headers);
        expect([label, response.status]).toEqual([label, 400]);
        expect(await response.json()).toMatchObject({ statusCode: 400, code: 'INVALID_BODY' });
      }
      const unknownEncoding = await postRaw(api, '{}', { 'content-encoding': 'zip-zap' });
      expect(unknownEncoding.status).toBe(415);
      expect((await unknownEncoding.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');

      expect(logger.lines.filter((line) => /error|\s{4}at /.test(line))).toEqual([]);
      // The backend's check never ran: the instrumented backend counts every call it gets. (The
      // folder may exist: the audit log of these refused requests lives in it.)
      const calls = await api.server.app
        .get(MemoryMetrics)
        .registry.getSingleMetricAsString('agent_memory_operations_total');
      expect(calls).not.toContain('operation="check"');
      expect((await api.request('/api/sessions/s1')).status).toBe(404);
    });

    it('checks the token before reading the body', async () => {
      const broken = await postRaw(api, Buffer.from('not gzip'), { 'content-encoding': 'gzip' });
      const noToken = await fetch(`${api.server.url}/api/sessions/s1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: new Uint8Array(Buffer.from('not gzip')),
      });
      expect(broken.status).toBe(400);
      expect(noToken.status).toBe(401);
      expect((await noToken.json()).code).toBe('UNAUTHORIZED');
    });

    it('answers unknown /api routes 401 without the token and 404 with it', async () => {
      for (const path of ['/api/nothing', '/api', '/api/sessions/x/nope/deeper', '/metrics']) {
        const anonymous = await api.request(path, { token: null });
        expect([path, anonymous.status]).toEqual([path, 401]);
      }
      expect((await api.request('/api/nothing')).status).toBe(404);
    });

    it('sends security headers, no X-Powered-By, and no-store on /api', async () => {
      for (const path of ['/api/sessions', '/api/docs', '/health/live', '/api/nothing']) {
        const response = await api.request(path);
        const headers = response.headers;
        expect([path, headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
        expect([path, headers.get('x-frame-options')]).toEqual([path, 'DENY']);
        expect(headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
        expect(headers.get('content-security-policy')).toMatch(/script-src 'self'/);
        expect(headers.get('x-powered-by')).toBeNull();
        if (path.startsWith('/api'))
          expect([path, headers.get('cache-control')]).toEqual([path, 'no-store']);
      }
      const docs = await api.request('/api/docs', { token: null });
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger-ui');
      const unauthorized = await api.request('/api/sessions', { token: null });
      expect(unauthorized.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('readiness on a stopped PostgreSQL', () => {
    let service: ThrowawayServer;
    let api: TestServer;
    const logger = new RecordingLogger({ logLevels: ['error', 'warn', 'log', 'debug'] });

    beforeAll(async () => {
      service = await startThrowawayPostgres();
      const data = backendEnv('postgres', { databaseUrl: service.url });
      api = await startTestServer(data.env, { logger });
      cleanups.push(async () => {
        await api.dispose();
        await service.dispose();
      });
    });

    it('names the dependency that is down, not its address, in answers and above debug in logs', async () => {
      expect((await api.request('/health/ready', { token: null })).status).toBe(200);
      await service.stop();
      const down = await api.request('/health/ready', { token: null });
      expect(down.status).toBe(503);
      const text = await down.text();
      expect(JSON.parse(text)).toMatchObject({
        error: { memory: { status: 'down', kind: 'postgres' } },
      });
      expect(text).not.toContain(String(service.port));
      expect(text).not.toContain('127.0.0.1');
      const call = await api.request('/api/sessions/s1');
      expect(call.status).toBe(503);
      expect(await call.text()).not.toContain(String(service.port));
      const listed = await api.request('/api/sessions');
      expect(listed.status).toBe(503);
      expect(await listed.text()).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|connect /);
      // What failed is logged at warn; the driver's text (hosts, ports) only at debug level.
      const above = logger.lines.filter((line) => !line.startsWith('debug'));
      expect(above.join('\n')).toMatch(/memory backend is down|PostgreSQL request failed/);
      for (const line of above) expect(line).not.toContain(String(service.port));
      expect(logger.lines.filter((line) => line.startsWith('debug')).join('\n')).toContain(
        String(service.port),
      );
      await service.start();
    });
  });

  describe('the admin token', () => {
    it.each([
      ['too short', 'short-token'],
      ['the example secret', 'change-me-to-a-long-random-token'],
      ['too few characters', 'abababababababababababab'],
    ])('refuses %s at start-up', async (_label, token) => {
      await expect(
        startApiServer({
          env: { PORT: '0', MEMORY_BACKEND: 'simple', MEMORY_ADMIN_TOKEN: token },
          logger: false,
        }),
      ).rejects.toThrow(ConfigValidationError);
    });

    it('blocks an address after too many wrong tokens, the right one included', async () => {
      const api = await startTestServer({ MEMORY_BACKEND: 'simple', AUTH_FAILURE_LIMIT: '3' });
      cleanups.push(() => api.dispose());
      expect((await api.request('/api/sessions')).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(
          (await api.request('/api/sessions', { token: `wrong-token-${i}-abcdefgh` })).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const blocked = await api.request('/api/sessions');
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await blocked.json()).code).toBe('TOO_MANY_AUTH_FAILURES');
      // Probes and the docs stay open.
      expect((await api.request('/health/live', { token: null })).status).toBe(200);
    });
  });
});
