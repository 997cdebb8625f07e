import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { RecallView } from '../../../lib/api-types';

/** `GET /api/sessions/:id/recall?q=`: what semantic recall would add to `retrieve(q)`. */
export function getRecall(id: string, query: string, signal?: AbortSignal): Promise<RecallView> {
  return apiJson<RecallView>(`/api/sessions/${encodeURIComponent(id)}/recall`, {
    query: { q: query },
    signal,
  });
}

/** Asked only for a query someone submitted (null: nothing asked yet). */
export const recallQueryOptions = (id: string, query: string | null) =>
  queryOptions({
    enabled: query !== null,
    queryKey: ['recall', id, query],
    queryFn: ({ signal }) => getRecall(id, query ?? '', signal),
    // The index changes with every save: a repeated question asks again after a while.
    staleTime: 10_000,
    retry: false,
  });

export function useRecall(id: string, query: string | null) {
  return useQuery(recallQueryOptions(id, query));
}
