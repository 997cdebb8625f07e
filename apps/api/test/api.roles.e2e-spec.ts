/**
 * Named tokens with roles against a running server: what a viewer, an operator and an admin may
 * do on each kind of route, in any spelling of the path, refused before the body is read; a
 * route without `@RequiredRole` that changes something is for admins only; `GET /api/info` says
 * who the token is. Requests go out through `node:http` so a path is sent exactly as written.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startApiServer } from '../src/api.server';
import { RouteRoleTable } from '../src/auth/route-roles';
import {
  startTestServer,
  TEST_ADMIN_TOKEN,
  userText,
  type TestServer,
} from './support/api-test-server';

const VIEWER = 'e2e-viewer-token-0123456789';
const OPERATOR = 'e2e-operator-token-0123456789';
const SECOND_ADMIN = 'e2e-second-admin-token-0123456789';
const hashOf = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

/** The named tokens of this suite, one entry a line. */
const NAMED_TOKENS = [
  `dash viewer ${hashOf(VIEWER)}`,
  `oncall operator ${hashOf(OPERATOR)}`,
  `root admin ${hashOf(SECOND_ADMIN)}`,
].join('\n');

interface Answer {
  status: number;
  body: { code?: string; message?: string } & Record<string, unknown>;
}

/** One request with the path exactly as written and `body` as raw text. */
function send(
  api: TestServer,
  method: string,
  path: string,
  token: string | null,
  body?: string,
): Promise<Answer> {
  const { port } = new URL(api.server.url);
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      // A connection per request: a refused request's body is left unread on its connection.
      { host: '127.0.0.1', port, method, path, headers, agent: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : {} }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('named tokens and roles', () => {
  let api: TestServer;
  let sessionCounter = 0;

  beforeAll(async () => {
    api = await startTestServer({
      MEMORY_BACKEND: 'simple',
      MEMORY_ADMIN_TOKENS: NAMED_TOKENS,
      AUTH_FAILURE_LIMIT: '1000',
    });
  });
  afterAll(() => api.dispose());

  /** A session with one message, fresh for each use. */
  async function session(): Promise<string> {
    const id = `roles-${++sessionCounter}`;
    expect((await api.append(id, [userText('hello')])).status).toBe(201);
    return id;
  }

  it('tells each token who it is on GET /api/info', async () => {
    const cases: [string, unknown][] = [
      [VIEWER, { name: 'dash', role: 'viewer' }],
      [OPERATOR, { name: 'oncall', role: 'operator' }],
      [SECOND_ADMIN, { name: 'root', role: 'admin' }],
      [TEST_ADMIN_TOKEN, { name: 'admin', role: 'admin' }],
    ];
    for (const [token, identity] of cases) {
      const info = await send(api, 'GET', '/api/info', token);
      expect([identity, info.status, info.body.token]).toEqual([identity, 200, identity]);
    }
    expect((await send(api, 'GET', '/api/info', 'e2e-nobody-token-0123456789')).status).toBe(401);
  });

  it('lets each role do what it may on each kind of route, and answers 403 FORBIDDEN_ROLE naming the role needed otherwise', async () => {
    /** Each kind of route: how to call it on a fresh session, and the weakest role it needs. */
    const kinds: {
      label: string;
      needs: string;
      call: (id: string) => [string, string, string?];
    }[] = [
      { label: 'list', needs: 'viewer', call: () => ['GET', '/api/sessions'] },
      { label: 'read one', needs: 'viewer', call: (id) => ['GET', `/api/sessions/${id}`] },
      {
        label: 'read messages',
        needs: 'viewer',
        call: (id) => ['GET', `/api/sessions/${id}/messages`],
      },
      {
        label: 'append',
        needs: 'operator',
        call: (id) => [
          'POST',
          `/api/sessions/${id}/messages`,
          JSON.stringify({ messages: [userText('more')] }),
        ],
      },
      {
        label: 'edit meta',
        needs: 'operator',
        call: (id) => ['PATCH', `/api/sessions/${id}/meta`, '{"title":"t"}'],
      },
      {
        label: 'compact',
        needs: 'operator',
        call: (id) => ['POST', `/api/sessions/${id}/compact`, '{"dryRun":true}'],
      },
      { label: 'clear', needs: 'operator', call: (id) => ['POST', `/api/sessions/${id}/clear`] },
      { label: 'delete', needs: 'admin', call: (id) => ['DELETE', `/api/sessions/${id}`] },
    ];
    const tokens: [string, string][] = [
      ['viewer', VIEWER],
      ['operator', OPERATOR],
      ['admin', SECOND_ADMIN],
    ];
    const rank = ['viewer', 'operator', 'admin'];
    for (const kind of kinds) {
      for (const [role, token] of tokens) {
        const [method, path, body] = kind.call(await session());
        const answer = await send(api, method, path, token, body);
        const label = `${role} ${kind.label}`;
        if (rank.indexOf(role) >= rank.indexOf(kind.needs)) {
          expect([label, answer.status < 300]).toEqual([label, true]);
        } else {
          expect([label, answer.status, answer.body.code]).toEqual([label, 403, 'FORBIDDEN_ROLE']);
          expect(answer.body.message).toContain(`needs the ${kind.needs} role`);
          expect(answer.body.message).toContain(`has the ${role} role`);
        }
      }
    }
  });

  it('refuses a role too low in any spelling of the path, and a wrong token with 401', async () => {
    const id = await session();
    const spellings = [
      `/API/SESSIONS/${id}`,
      `/Api/sEssions/${id}/`,
      `//api//sessions/${id}`,
      `/%61pi/%73essions/${id}`,
    ];
    for (const path of spellings) {
      for (const token of [VIEWER, OPERATOR]) {
        const answer = await send(api, 'DELETE', path, token);
        expect([path, answer.status, answer.body.code]).toEqual([path, 403, 'FORBIDDEN_ROLE']);
      }
      const append = await send(
        api,
        'POST',
        `${path}/messages`.replace('//messages', '/messages'),
        VIEWER,
        '{}',
      );
      expect([path, append.status]).toEqual([path, 403]);
      const wrong = await send(api, 'DELETE', path, 'e2e-nobody-token-0123456789');
      expect([path, wrong.status]).toEqual([path, 401]);
    }
    // Nothing was deleted on the way.
    expect((await send(api, 'GET', `/api/sessions/${id}`, VIEWER)).status).toBe(200);
  });

  it('refuses before the body is read: a viewer posting broken JSON gets 403, not 400', async () => {
    const id = await session();
    const refused = await send(
      api,
      'POST',
      `/api/sessions/${id}/messages`,
      VIEWER,
      '{"messages": [',
    );
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN_ROLE']);
    const parsed = await send(
      api,
      'POST',
      `/api/sessions/${id}/messages`,
      OPERATOR,
      '{"messages": [',
    );
    expect(parsed.status).toBe(400);
  });

  it('keeps every change route for admins unless it is marked for operators', async () => {
    const routes = api.server.app.get(RouteRoleTable).list();
    const changes = routes.filter((route) => route.method !== 'GET');
    expect(
      changes
        .filter((route) => route.role !== 'admin')
        .map((route) => `${route.method} ${route.pattern}`)
        .sort(),
    ).toEqual([
      'PATCH /api/sessions/:id/meta',
      'POST /api/sessions/:id/clear',
      'POST /api/sessions/:id/compact',
      'POST /api/sessions/:id/messages',
      // Any token may speak MCP; each tool checks the role (api.mcp.e2e-spec.ts).
      'POST /mcp',
    ]);
    // Each admin-only change route refuses an operator, whatever route a later change adds.
    for (const route of changes.filter((r) => r.role === 'admin')) {
      const path = route.pattern.replace(/:\w+/g, 'probe-1');
      const answer = await send(api, route.method, path, OPERATOR, '{}');
      expect([route.pattern, answer.status]).toEqual([route.pattern, 403]);
    }
    // Reads are open to viewers (the audit log excepted, see its own suite).
    for (const route of routes.filter((r) => r.method === 'GET' && r.role !== 'viewer')) {
      expect(route.pattern).toBe('/api/audit');
    }
  });

  it('runs with named tokens only: no admin token is made up, and the named ones work', async () => {
    const server = await startApiServer({
      env: { PORT: '0', MEMORY_BACKEND: 'simple', MEMORY_ADMIN_TOKENS: NAMED_TOKENS },
      logger: false,
    });
    try {
      expect(server.token).toBeNull();
      expect(server.dashboardUrl).toBe(`${server.url}/`);
      const info = await fetch(`${server.url}/api/info`, {
        headers: { authorization: `Bearer ${OPERATOR}` },
      });
      expect(((await info.json()) as { token: unknown }).token).toEqual({
        name: 'oncall',
        role: 'operator',
      });
      const asAdmin = await fetch(`${server.url}/api/info`, {
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      expect(asAdmin.status).toBe(401);
    } finally {
      await server.app.close();
    }
  });
});
