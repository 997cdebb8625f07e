import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { SessionDetail } from '../../../lib/api-types';

/** How often an open session is checked for outside writes. */
export const SESSION_POLL_MS = 2_000;

/** `GET /api/sessions/:id`: counts, snapshot, context tokens and the threshold. 404 when unknown. */
export function getSession(id: string, signal?: AbortSignal): Promise<SessionDetail> {
  return apiJson<SessionDetail>(`/api/sessions/${encodeURIComponent(id)}`, { signal });
}

export const sessionQueryOptions = (id: string) =>
  queryOptions({
    queryKey: ['session', id],
    queryFn: ({ signal }) => getSession(id, signal),
    refetchInterval: SESSION_POLL_MS,
    retry: (count, error) => (error as { status?: number }).status !== 404 && count < 2,
  });

/** One session, polled while it is on screen so outside writes show up. */
export function useSession(id: string) {
  return useQuery(sessionQueryOptions(id));
}
