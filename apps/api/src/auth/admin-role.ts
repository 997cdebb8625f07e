import type { AdminRole, AdminRoleOrder } from '@agent-memory/api-contract';

export type { AdminRole };

/**
 * Every role, weakest first: each may do what the ones before it may. Typed by the contract's
 * `AdminRoleOrder`, so the order cannot differ from the one the dashboard reads (`GET /api/roles`).
 */
export const ADMIN_ROLES: AdminRoleOrder = ['viewer', 'operator', 'admin'];

/** Whether a token of role `held` may call a route that needs `needed`. */
export function roleAllows(held: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(held) >= ADMIN_ROLES.indexOf(needed);
}

/** Methods that only read: a viewer may call them. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The role a route needs when it is not marked with `@RequiredRole`: reads (GET, HEAD) need a
 * viewer, every change needs an admin, so a route added without thought is closed by default.
 */
export function defaultRoleFor(method: string): AdminRole {
  return READ_METHODS.has(method.toUpperCase()) ? 'viewer' : 'admin';
}

/** Whether `method` changes something (its requests are audited). */
export function isChangeMethod(method: string): boolean {
  return !READ_METHODS.has(method.toUpperCase());
}
