import type { AdminRole, ServerInfo } from './api-types';

/** Every role, weakest first: each may do what the ones before it may (as the server decides). */
const ROLES: readonly AdminRole[] = ['viewer', 'operator', 'admin'];

/** Whether a token of role `held` may take an action that needs `needed`. */
export function roleAllows(held: AdminRole, needed: AdminRole): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/**
 * The signed-in token's role from `GET /api/info`: `viewer` while it loads (no action is offered
 * that may be refused), `admin` from a server that names no token (it had one token, an admin).
 */
export function signedInRole(info: ServerInfo | undefined): AdminRole {
  if (!info) return 'viewer';
  return info.token?.role ?? 'admin';
}
