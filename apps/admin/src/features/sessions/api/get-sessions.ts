import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { SessionPage } from '../../../lib/api-types';
import { firstSessionsPageSize, SESSIONS_PAGE_SIZE } from '../../../lib/page-sizes';

export { SESSIONS_PAGE_SIZE };

/**
 * `GET /api/sessions?limit&after&search&resource`: newest update first, keyset-paginated;
 * `resource` keeps the sessions whose `resource` meta is exactly that value.
 */
export function getSessions(
  query: { search: string; after: string | null; limit: number; resource?: string },
  signal?: AbortSignal,
): Promise<SessionPage> {
  return apiJson<SessionPage>('/api/sessions', {
    query: {
      limit: query.limit,
      after: query.after,
      search: query.search || undefined,
      resource: query.resource || undefined,
    },
    signal,
  });
}

/**
 * A page this recent is not asked again when the list mounts (the first page the app starts with,
 * from the early load, among them); focus after that, and changes made here, refresh it.
 */
const SESSIONS_FRESH_MS = 5_000;

/**
 * The list as pages; the first page is `shown` rows long when restoring a shared position. The
 * unfiltered list keeps the key the early load seeds.
 */
export const sessionsQueryOptions = (search: string, shown: number | null, resource = '') =>
  infiniteQueryOptions({
    queryKey: resource ? ['sessions', { search, resource }] : ['sessions', { search }],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      getSessions(
        {
          search,
          resource,
          after: pageParam,
          limit: pageParam === null ? firstSessionsPageSize(shown) : SESSIONS_PAGE_SIZE,
        },
        signal,
      ),
    getNextPageParam: (last) => last.next,
    staleTime: SESSIONS_FRESH_MS,
    refetchOnWindowFocus: true,
  });

export function useSessions(search: string, shown: number | null, resource = '') {
  return useInfiniteQuery(sessionsQueryOptions(search, shown, resource));
}
