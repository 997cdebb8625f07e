import type { QueryClient } from '@tanstack/react-query';
import { sessionsQueryOptions } from '../features/sessions/api/get-sessions';
import type { SessionPage } from '../lib/api-types';
import { parseUrlState } from '../lib/url-state';
import { takeFirstSessionsPage } from './prefetch';

/**
 * Puts the list's first page, fetched before React loaded (`prefetch.ts`), into the query cache,
 * so that the list's first render has its rows: no loading state flashes between the rows drawn
 * before React and React's own. The query still refetches on mount; that call takes the same
 * early response (`apiFetch`), so nothing is asked twice.
 */
export function seedFirstView(client: QueryClient): void {
  const first = takeFirstSessionsPage();
  const state = parseUrlState(window.location.search);
  const page = first?.body as SessionPage | null | undefined;
  if (!first || !page || !Array.isArray(page.items) || state.session || state.q !== first.search) {
    return;
  }
  client.setQueryData(sessionsQueryOptions(state.q, state.shown).queryKey, {
    pages: [page],
    pageParams: [null],
  });
}
