import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from './api-client';
import type { AdminRole, RoleTable, ServerInfo } from './api-types';

/** An admin API route as the server's role table names it: method and declared pattern. */
export interface ApiRoute {
  method: string;
  pattern: string;
}

/** `GET /api/roles`: the role order and the role each route needs, from the server's own decorators. */
export function getRoleTable(signal?: AbortSignal): Promise<RoleTable> {
  return apiJson<RoleTable>('/api/roles', { signal });
}

/** The role table changes only when the server is upgraded: fetched once per page load. */
export const roleTableQueryOptions = () =>
  queryOptions({
    queryKey: ['roles'],
    queryFn: ({ signal }) => getRoleTable(signal),
    staleTime: Infinity,
  });

export function useRoleTable() {
  return useQuery(roleTableQueryOptions());
}

/**
 * Whether a token of role `held` may call `route`, as the server's `table` says: false while the
 * table loads or when it does not list the route, so no action is offered that may be refused.
 */
export function mayCall(table: RoleTable | undefined, held: AdminRole, route: ApiRoute): boolean {
  const entry = table?.routes.find(
    (candidate) => candidate.method === route.method && candidate.pattern === route.pattern,
  );
  if (!table || !entry) return false;
  return table.roles.indexOf(held) >= table.roles.indexOf(entry.role);
}

/**
 * The signed-in token's role from `GET /api/info`: `viewer` while it loads (no action is offered
 * that may be refused), `admin` from a server that names no token (it had one token, an admin).
 */
export function signedInRole(info: ServerInfo | undefined): AdminRole {
  if (!info) return 'viewer';
  return info.token?.role ?? 'admin';
}
