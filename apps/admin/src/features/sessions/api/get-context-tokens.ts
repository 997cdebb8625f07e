import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import type { ContextTokens } from '../../../lib/api-types';

/** `GET /api/context-tokens?ids=`: the context size of a page of sessions, fetched after the rows show. */
export function getContextTokens(ids: string[], signal?: AbortSignal): Promise<ContextTokens> {
  return apiJson<ContextTokens>('/api/context-tokens', { query: { ids: ids.join(',') }, signal });
}

export const contextTokensQueryOptions = (ids: string[], version: string) =>
  queryOptions({
    queryKey: ['context-tokens', ids, version],
    queryFn: ({ signal }) => getContextTokens(ids, signal),
    enabled: ids.length > 0,
    staleTime: 10_000,
  });

/** Tokens for one page of rows; `version` (their update times) refetches when a row changes. */
export function useContextTokens(ids: string[], version: string) {
  return useQuery(contextTokensQueryOptions(ids, version));
}
