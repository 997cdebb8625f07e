/**
 * `GET /api/roles` against a running server: the table it serves is the one the auth gate decides
 * with. For every listed route and every role, a request is refused with 403 `FORBIDDEN_ROLE`
 * exactly when the table says the role is below the route's, and passes the gate otherwise.
 */
import { createHash } from 'node:crypto';
import type { AdminRole, RoleTable } from '@agent-memory/api-contract';
import { RouteRoleTable } from '../src/auth/route-roles';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from './support/api-test-server';

const TOKENS: Record<AdminRole, string> = {
  viewer: 'e2e-table-viewer-token-0123456789',
  operator: 'e2e-table-operator-token-0123456789',
  admin: TEST_ADMIN_TOKEN,
};
const hashOf = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

describe('GET /api/roles', () => {
  let api: TestServer;

  beforeAll(async () => {
    api = await startTestServer({
      MEMORY_BACKEND: 'simple',
      MEMORY_ADMIN_TOKENS: [
        `table-viewer viewer ${hashOf(TOKENS.viewer)}`,
        `table-operator operator ${hashOf(TOKENS.operator)}`,
      ].join('\n'),
      AUTH_FAILURE_LIMIT: '1000',
    });
  });
  afterAll(() => api.dispose());

  async function table(role: AdminRole): Promise<RoleTable> {
    const response = await api.request('/api/roles', { token: TOKENS[role] });
    expect(response.status).toBe(200);
    return (await response.json()) as RoleTable;
  }

  it('serves the role order and every /api route the gate knows, to any signed-in token', async () => {
    const served = await table('viewer');
    expect(served.roles).toEqual(['viewer', 'operator', 'admin']);
    expect(await table('admin')).toEqual(served);
    const known = api.server.app
      .get(RouteRoleTable)
      .list()
      .filter((route) => route.pattern.startsWith('/api/'));
    expect(new Set(served.routes.map((r) => `${r.method} ${r.pattern} ${r.role}`))).toEqual(
      new Set(known.map((r) => `${r.method} ${r.pattern} ${r.role}`)),
    );
    // The decorators' roles, as the dashboard's buttons rely on them.
    const roleOf = (method: string, pattern: string) =>
      served.routes.find((r) => r.method === method && r.pattern === pattern)?.role;
    expect(roleOf('GET', '/api/sessions')).toBe('viewer');
    expect(roleOf('POST', '/api/sessions/:id/compact')).toBe('operator');
    expect(roleOf('DELETE', '/api/sessions/:id')).toBe('admin');
    expect(roleOf('GET', '/api/audit')).toBe('admin');
    expect((await api.request('/api/roles', { token: null })).status).toBe(401);
  });

  it('matches the gate: each listed route refuses exactly the roles the table puts below it', async () => {
    const served = await table('viewer');
    const rank = (role: AdminRole) => served.roles.indexOf(role);
    const mismatches: string[] = [];
    for (const route of served.routes) {
      // A parameter gets a value no session or job has: the request is decided by the gate
      // alone, and a route it lets through answers without touching stored data.
      const path = route.pattern.replace(/:[^/]+/g, 'role-table-nothing');
      for (const role of served.roles) {
        const response = await api.request(path, {
          method: route.method,
          token: TOKENS[role],
          ...(route.method === 'GET' ? {} : { json: {} }),
        });
        await response.body?.cancel();
        const refused = response.status === 403;
        const shouldRefuse = rank(role) < rank(route.role);
        if (refused !== shouldRefuse || response.status === 401) {
          mismatches.push(`${role} ${route.method} ${path}: ${response.status}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});
