import { describe, expect, it } from 'vitest';
import type { AdminRole, RoleTable } from './api-types';
import { mayCall } from './roles';

const table: RoleTable = {
  roles: ['viewer', 'operator', 'admin'],
  routes: [
    { method: 'GET', pattern: '/api/audit', role: 'admin' },
    { method: 'POST', pattern: '/api/sessions/:id/compact', role: 'operator' },
  ],
};

describe('mayCall', () => {
  it.each<[AdminRole, string, string, boolean]>([
    ['viewer', 'POST', '/api/sessions/:id/compact', false],
    ['operator', 'POST', '/api/sessions/:id/compact', true],
    ['admin', 'POST', '/api/sessions/:id/compact', true],
    ['operator', 'GET', '/api/audit', false],
    ['admin', 'GET', '/api/audit', true],
    // A route the table does not list, or another method on a listed pattern, is not offered.
    ['admin', 'DELETE', '/api/audit', false],
    ['admin', 'POST', '/api/unknown', false],
  ])('%s %s %s: %s', (role, method, pattern, allowed) => {
    expect(mayCall(table, role, { method, pattern })).toBe(allowed);
  });

  it('offers nothing before the table has loaded', () => {
    expect(mayCall(undefined, 'admin', { method: 'GET', pattern: '/api/audit' })).toBe(false);
  });
});
