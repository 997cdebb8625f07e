import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { SessionContext } from '../../../lib/api-types';

/**
 * `GET /api/sessions/:id/context`: exactly what `retrieve()` returns, with token totals by source;
 * `withMessages: false` asks for the totals only (the budget bar).
 */
export function getContext(
  id: string,
  withMessages: boolean,
  signal?: AbortSignal,
): Promise<SessionContext> {
  return apiJson<SessionContext>(`/api/sessions/${encodeURIComponent(id)}/context`, {
    query: { messages: withMessages ? undefined : 0 },
    signal,
  });
}

/** `version` (the session's last update) refetches when the session changes. */
export const contextQueryOptions = (
  id: string,
  withMessages: boolean,
  version: string,
  enabled = true,
) =>
  queryOptions({
    enabled,
    queryKey: ['context', id, withMessages ? 'messages' : 'totals', version],
    queryFn: ({ signal }) => getContext(id, withMessages, signal),
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });

/** `enabled: false` until the view that needs it is shown. */
export function useSessionContext(
  id: string,
  withMessages: boolean,
  version: string,
  enabled = true,
) {
  return useQuery(contextQueryOptions(id, withMessages, version, enabled));
}
