import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { ServerInfo } from '../../../lib/api-types';

/** `GET /api/info`: backend kind and compaction settings. */
export function getInfo(signal?: AbortSignal): Promise<ServerInfo> {
  return apiJson<ServerInfo>('/api/info', { signal });
}

export const infoQueryOptions = () =>
  queryOptions({ queryKey: ['info'], queryFn: ({ signal }) => getInfo(signal), staleTime: 60_000 });

export function useInfo() {
  return useQuery(infoQueryOptions());
}
