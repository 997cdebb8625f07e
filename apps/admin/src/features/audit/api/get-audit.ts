import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { AuditPage } from '../../../lib/api-types';

/** Entries per page of the audit log view. */
export const AUDIT_PAGE_SIZE = 50;

/** The route of {@link getAudit}, as the server's role table names it. */
export const AUDIT_ROUTE = { method: 'GET', pattern: '/api/audit' } as const;

/** `GET /api/audit?limit&after`: changes made through the API, newest first (admins only). */
export function getAudit(after: string | null, signal?: AbortSignal): Promise<AuditPage> {
  return apiJson<AuditPage>('/api/audit', { query: { limit: AUDIT_PAGE_SIZE, after }, signal });
}

export const auditQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: ['audit'],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => getAudit(pageParam, signal),
    getNextPageParam: (last) => last.next,
  });

export function useAudit() {
  return useInfiniteQuery(auditQueryOptions());
}
