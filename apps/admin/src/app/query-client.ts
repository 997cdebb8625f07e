import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api-client';

/**
 * The app's QueryClient. Any call the server refuses with 401 reports to `onUnauthorized` (the app
 * then shows the sign-in again); such calls are not retried.
 */
export function createQueryClient(onUnauthorized: () => void): QueryClient {
  const check = (error: unknown) => {
    if (error instanceof ApiError && error.unauthorized) onUnauthorized();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: check }),
    mutationCache: new MutationCache({ onError: check }),
    defaultOptions: {
      queries: {
        retry: (count, error) =>
          !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}
