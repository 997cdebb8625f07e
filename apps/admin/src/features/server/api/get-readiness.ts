import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiUrl } from '../../../lib/api-client';

/** What `/health/ready` says: ready, or not with the reason Terminus gave. */
export interface Readiness {
  ready: boolean;
  detail: string | null;
}

/** Polling period of the readiness probe. */
const READINESS_POLL_MS = 15_000;

/** `GET /health/ready` (no token): 200 is ready, 503 names what is down. Never throws on 503. */
export async function getReadiness(signal?: AbortSignal): Promise<Readiness> {
  let response: Response;
  try {
    response = await fetch(apiUrl('/health/ready'), {
      signal,
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    return { ready: false, detail: 'the admin server cannot be reached' };
  }
  if (response.ok) return { ready: true, detail: null };
  const body = (await response.json().catch(() => ({}))) as {
    error?: Record<string, { message?: string }>;
  };
  const down = Object.entries(body.error ?? {}).map(
    ([name, value]) => `${name}: ${value.message ?? 'down'}`,
  );
  return { ready: false, detail: down.join('; ') || `HTTP ${response.status}` };
}

export const readinessQueryOptions = () =>
  queryOptions({
    queryKey: ['readiness'],
    queryFn: ({ signal }) => getReadiness(signal),
    refetchInterval: READINESS_POLL_MS,
  });

export function useReadiness() {
  return useQuery(readinessQueryOptions());
}
