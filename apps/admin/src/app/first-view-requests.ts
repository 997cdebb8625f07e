import type { RequestOptions } from '../lib/api-client';
import { firstSessionsPageSize, TRANSCRIPT_PAGE_SIZE } from '../lib/page-sizes';
import type { UrlState } from '../lib/url-state-parse';

/** One GET of the first view, as `startEarlyGet` and `takeEarlyBody` take it. */
export interface FirstViewRequest {
  path: string;
  query?: RequestOptions['query'];
}

/**
 * The GETs the first view of `state` starts before the app loads, built from the same page sizes
 * and parameters as the views' fetchers (so the app's calls find them): `rows`, the page the first
 * rows are drawn from (the list's first page, or the first page of the open session's log), and
 * the others (the open session's details, `/api/info` for the header).
 */
export function firstViewRequests(state: UrlState): {
  rows: FirstViewRequest | null;
  others: FirstViewRequest[];
} {
  const info = { path: '/api/info' };
  if (state.session) {
    const path = `/api/sessions/${encodeURIComponent(state.session)}`;
    return {
      rows:
        state.view === 'log'
          ? { path: `${path}/transcript`, query: { after: null, limit: TRANSCRIPT_PAGE_SIZE } }
          : null,
      others: [{ path }, info],
    };
  }
  return {
    rows: {
      path: '/api/sessions',
      query: {
        limit: firstSessionsPageSize(state.shown),
        after: null,
        search: state.q || undefined,
      },
    },
    others: [info],
  };
}
