import type { QueryClient } from '@tanstack/react-query';
import { sessionsQueryOptions } from '../features/sessions/api/get-sessions';
import { transcriptQueryOptions } from '../features/transcript/api/get-transcript';
import { takeEarlyBody } from '../lib/api-client';
import type { SessionPage, TranscriptPage } from '../lib/api-types';
import { parseUrlState, type UrlState } from '../lib/url-state-parse';
import { firstViewRequests } from './first-view-requests';

/** The page the early rows were drawn from, for the view of `state`. */
export interface FirstRowsData {
  state: UrlState;
  page: unknown;
}

/**
 * Takes the page the early-load script drew the first rows from, when it has arrived, so that
 * React's first render shows the same rows instead of a loading state between them and its own.
 * Null when there is none (no token, a failed call, or not back yet: the app's own call then
 * takes the response as it comes).
 */
export function takeFirstRowsData(token: string | null): FirstRowsData | null {
  const state = parseUrlState(window.location.search);
  const rows = firstViewRequests(state).rows;
  const page = rows ? takeEarlyBody(rows.path, rows.query, token) : undefined;
  return page === undefined ? null : { state, page };
}

/** Puts {@link FirstRowsData} into `client` as the first page of the view's query. */
export function seedFirstRows(client: QueryClient, data: FirstRowsData | null): void {
  if (!data) return;
  const { state } = data;
  if (state.session) {
    client.setQueryData(transcriptQueryOptions(state.session).queryKey, {
      pages: [data.page as TranscriptPage],
      pageParams: [null],
    });
  } else {
    client.setQueryData(sessionsQueryOptions(state.q, state.shown).queryKey, {
      pages: [data.page as SessionPage],
      pageParams: [null],
    });
  }
}
