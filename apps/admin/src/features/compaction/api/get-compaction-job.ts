import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { CompactionJob } from '../../../lib/api-types';

/** How often a queued or running job is polled. */
export const JOB_POLL_MS = 500;

/** `GET /api/compactions/:jobId`: state, then the result or the error. */
export function getCompactionJob(jobId: string, signal?: AbortSignal): Promise<CompactionJob> {
  return apiJson<CompactionJob>(`/api/compactions/${encodeURIComponent(jobId)}`, { signal });
}

export const compactionJobQueryOptions = (jobId: string) =>
  queryOptions({
    queryKey: ['compaction-job', jobId],
    queryFn: ({ signal }) => getCompactionJob(jobId, signal),
    // Poll until the job settles; a finished job never changes.
    refetchInterval: (query) => {
      const state = query.state.data?.state;
      return state === 'done' || state === 'failed' || query.state.error ? false : JOB_POLL_MS;
    },
    staleTime: (query) =>
      query.state.data?.state === 'done' || query.state.data?.state === 'failed' ? Infinity : 0,
    retry: (count, error) => (error as { status?: number }).status !== 404 && count < 2,
  });

export function useCompactionJob(jobId: string | null) {
  return useQuery({ ...compactionJobQueryOptions(jobId ?? ''), enabled: jobId !== null });
}
