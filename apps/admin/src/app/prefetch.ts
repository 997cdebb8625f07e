import { storedToken, takeTokenFromUrl } from '../features/auth/token-storage';
import { startEarlyGet } from '../lib/api-client';
import { firstSessionsPageSize, TRANSCRIPT_PAGE_SIZE } from '../lib/page-sizes';
import { parseUrlState } from '../lib/url-state';
import { showEarlySessions, showEarlyTranscript } from './early-view';

/**
 * Starts the first view's API calls before React and the views have loaded (the app's own calls
 * then take these responses): the sessions list's first page, or the open session and the first
 * page of its log; `/api/info` for the header. Nothing without a token (the sign-in shows).
 * The URLs are built from the same page sizes and parameters as the views' fetchers. The first
 * rows are drawn from these responses as soon as they arrive (`early-view.ts`); the promise
 * settles then (at once when there is nothing to draw).
 */
export function prefetchFirstView(): Promise<void> {
  // The printed URL's token leaves the address bar before anything is drawn (the app then finds
  // it kept for the tab).
  const token = takeTokenFromUrl() ?? storedToken();
  const search = window.location.search;
  if (!token) return Promise.resolve();
  const state = parseUrlState(search);
  if (state.session) {
    const path = `/api/sessions/${encodeURIComponent(state.session)}`;
    // The log first: the server answers it before the session's details, which count tokens.
    const log =
      state.view === 'log'
        ? startEarlyGet(
            `${path}/transcript`,
            { after: null, limit: TRANSCRIPT_PAGE_SIZE },
            token,
          ).then(showEarlyTranscript)
        : Promise.resolve();
    void startEarlyGet(path, undefined, token);
    void startEarlyGet('/api/info', undefined, token);
    return log;
  }
  const list = startEarlyGet(
    '/api/sessions',
    { limit: firstSessionsPageSize(state.shown), after: null, search: state.q || undefined },
    token,
  );
  void startEarlyGet('/api/info', undefined, token);
  return list.then(showEarlySessions);
}
