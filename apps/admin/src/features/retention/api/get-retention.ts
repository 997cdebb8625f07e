import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { RetentionView } from '../../../lib/api-types';

/** `GET /api/retention`: the configured policy (null: off) and this replica's next sweep. */
export function getRetention(signal?: AbortSignal): Promise<RetentionView> {
  return apiJson<RetentionView>('/api/retention', { signal });
}

export const retentionQueryOptions = () =>
  queryOptions({
    queryKey: ['retention'],
    queryFn: ({ signal }) => getRetention(signal),
    // The policy changes only with a restart; the next sweep time moves once an interval.
    staleTime: 60_000,
  });

export function useRetention() {
  return useQuery(retentionQueryOptions());
}
