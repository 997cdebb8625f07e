/**
 * The token gate against every route the running server has, read from its Express router (so a
 * route added later is covered without touching this file), in every spelling a client may send:
 * any case, doubled slashes, percent-encoded letters, a trailing slash. Requests go out through
 * `node:http` with the path exactly as written (fetch would tidy it) and from their own loopback
 * address per spelling, so each spelling has a failed-attempt count of its own.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { EventLoopHold, processCpuMs } from '../src/metrics/event-loop-hold';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support/api-test-server';

/** Failed attempts an address may make before it is blocked, in this suite. */
const LIMIT = 3;

/** What the server may leave open: the probes and the OpenAPI page. */
const OPEN = /^\/(health(\/|$)|api\/docs(\/|$)|api\/docs-json$)/;

interface RawAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

interface RawRequest {
  method: string;
  /** Sent as written: no URL parsing tidies it. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The loopback address the request leaves from (its own failed-attempt count). */
  from?: string;
}

function send(server: TestServer, { method, path, headers = {}, body, from }: RawRequest) {
  const { port } = new URL(server.server.url);
  return new Promise<RawAnswer>((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: from,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Every route of the running app with its methods, read from Express's router. */
function routesOf(server: TestServer): { method: string; path: string }[] {
  // Express 5 keeps its routes on `router.stack`; its types do not declare the router.
  const express = server.server.app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  const stack = express.router.stack;
  return stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map((method) => ({
          method: method.toUpperCase(),
          path: layer.route!.path,
        }))
      : [],
  );
}

/** A concrete path for a route pattern: each `:param` becomes a plausible value. */
const concrete = (pattern: string): string => pattern.replace(/:\w+/g, 'probe-1');

/** The spellings a client may send for one path, each a function of the plain path. */
const SPELLINGS: Record<string, (path: string) => string> = {
  'as declared': (path) => path,
  'upper case': (path) => path.toUpperCase(),
  'mixed case': (path) =>
    [...path].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join(''),
  'doubled leading slash': (path) => `/${path}`,
  'doubled inner slashes': (path) => path.replace(/\//g, '//'),
  'percent-encoded letters': (path) =>
    path.replace(/[a-z]/gi, (c) => `%${c.charCodeAt(0).toString(16)}`),
  'one encoded letter per segment': (path) =>
    path.replace(
      /\/([a-z])/gi,
      (_m, c: string) => `/%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
  'trailing slash': (path) => `${path}/`,
  'all at once': (path) =>
    `/${path.replace(/\/(\w)/g, (_m, c: string) => `/%${c.charCodeAt(0).toString(16)}`).toUpperCase()}/`,
};

describe('the admin token gate', () => {
  let api: TestServer;

  beforeAll(async () => {
    api = await startTestServer({ MEMORY_BACKEND: 'simple', AUTH_FAILURE_LIMIT: String(LIMIT) });
  });
  afterAll(() => api.dispose());

  it('refuses every protected route in every spelling, and counts wrong tokens in each', async () => {
    const protectedRoutes = routesOf(api).filter((route) => !OPEN.test(route.path));
    // The API, the metrics and the dashboard's views are all there.
    expect(protectedRoutes.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/api/sessions', '/api/sessions/:id/messages', '/metrics']),
    );
    expect(protectedRoutes.length).toBeGreaterThan(LIMIT + 1);

    let address = 10;
    for (const [spelling, spell] of Object.entries(SPELLINGS)) {
      const from = `127.0.0.${address++}`;
      const calls = protectedRoutes.map((route) => ({
        label: `${spelling}: ${route.method} ${spell(concrete(route.path))}`,
        method: route.method,
        path: spell(concrete(route.path)),
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
        from,
      }));
      for (const { label, ...call } of calls) {
        const anonymous = await send(api, call);
        expect([label, anonymous.status]).toEqual([label, 401]);
        expect([label, anonymous.headers['cache-control']]).toEqual([label, 'no-store']);
        expect(JSON.parse(anonymous.body)).toMatchObject({ code: 'UNAUTHORIZED' });
      }
      const wrongTokenStatuses: number[] = [];
      for (const { label, ...call } of calls) {
        const wrong = await send(api, {
          ...call,
          headers: { authorization: 'Bearer not-the-admin-token-000' },
        });
        expect([label, wrong.headers['cache-control']]).toEqual([label, 'no-store']);
        wrongTokenStatuses.push(wrong.status);
      }
      // No token at all never counted; each wrong one did, whatever the spelling.
      expect([spelling, wrongTokenStatuses.slice(0, LIMIT + 1)]).toEqual([
        spelling,
        [...Array<number>(LIMIT).fill(401), 429],
      ]);
      expect([spelling, new Set(wrongTokenStatuses.slice(LIMIT))]).toEqual([
        spelling,
        new Set([429]),
      ]);
    }
  });

  it('does not count CORS preflights or requests without a token as failed logins', async () => {
    const from = '127.0.0.90';
    for (let i = 0; i < LIMIT * 4; i++) {
      const preflight = await send(api, {
        method: 'OPTIONS',
        path: '/api/sessions',
        headers: {
          origin: 'https://elsewhere.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
        from,
      });
      expect(preflight.status).not.toBe(429);
      expect((await send(api, { method: 'GET', path: '/API/sessions', from })).status).toBe(401);
    }
    const operator = await send(api, {
      method: 'GET',
      path: '/api/sessions',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      from,
    });
    expect(operator.status).toBe(200);
    expect(operator.headers['cache-control']).toBe('no-store');
  });

  it('refuses a 4 MB body without a token before it is sent, and holds no loop for it', async () => {
    // Costly to parse: over a million small objects.
    const body = Buffer.from(`{"messages":[${'{},'.repeat(1_400_000)}{}]}`);
    expect(body.length).toBeGreaterThan(4_000_000);
    const { port } = new URL(api.server.url);
    const refuse = (path: string, sendAll: boolean) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        });
        request.on('response', (response) => {
          response.resume();
          // A body parser would still be waiting for the rest of the body.
          if (!sendAll) request.destroy();
          resolve(response.statusCode!);
        });
        request.on('error', (error) => (sendAll ? reject(error) : undefined));
        if (sendAll) request.end(body);
        else request.write(body.subarray(0, 64 * 1024));
      });
    for (const path of [
      '/api/sessions/s1/messages',
      '/API/sessions/s1/messages',
      // Escaped slashes that, decoded, would step out of /api: still the messages route.
      '/api/sessions/..%2F..%2Fx/messages',
      '/api/sessions/..%2f..%5Cx/messages',
    ]) {
      expect([path, await refuse(path, false)]).toEqual([path, 401]);
    }
    const hold = new EventLoopHold();
    hold.start();
    hold.takeMaxMs();
    const statuses = await Promise.all(
      [
        '/API/sessions/s1/messages',
        '/Api/Sessions/s1/messages',
        '//api/sessions/s1/messages',
        '/%61pi/sessions/s1/messages',
      ].map((path) => refuse(path, true)),
    );
    const heldMs = hold.takeMaxMs();
    hold.stop();
    expect(statuses).toEqual([401, 401, 401, 401]);
    // Parsing one body would hold the loop for a whole parse: the bound is one parse measured
    // here and now, so a loaded machine slows both sides alike.
    const started = processCpuMs();
    JSON.parse(body.toString('utf8'));
    expect(heldMs).toBeLessThan(processCpuMs() - started);
  });
  it('refuses token-less gzip bodies on a path that decodes outside /api without inflating them', async () => {
    // 4 KB on the wire, over 4 MB of JSON once inflated and parsed.
    const body = gzipSync(Buffer.from(`{"messages":[${'{},'.repeat(1_400_000)}{}]}`));
    expect(body.length).toBeLessThan(8 * 1024);
    const { port } = new URL(api.server.url);
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/sessions/..%2F..%2Fx/messages',
          headers: {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': body.length,
          },
        });
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end(body);
      });
    const hold = new EventLoopHold();
    hold.start();
    hold.takeMaxMs();
    const cpuBefore = process.cpuUsage();
    const statuses = await Promise.all(Array.from({ length: 100 }, post));
    const cpu = process.cpuUsage(cpuBefore);
    const heldMs = hold.takeMaxMs();
    hold.stop();
    const cpuMs = (cpu.user + cpu.system) / 1000;
    console.log(
      `100 token-less gzip bodies on ..%2F: ${cpuMs} ms of CPU (client and server), loop held at most ${heldMs} ms`,
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
    // Inflating and parsing one of these bodies takes hundreds of ms of CPU; refusing all 100
    // takes a fraction of that. The bound is one inflate measured here and now, so a loaded
    // machine slows both sides alike (the longest hold is no bound: a loaded machine hands the
    // loop many requests per turn): fewer than 10 of the 100 could have been inflated.
    const started = processCpuMs();
    JSON.parse(gunzipSync(body).toString('utf8'));
    const oneInflateMs = processCpuMs() - started;
    expect(cpuMs).toBeLessThan(10 * oneInflateMs);
  });
});
