import { storedToken, takeTokenFromUrl } from '../features/auth/token-storage';
import { startEarlyGet } from '../lib/api-client';
import { parseUrlState } from '../lib/url-state-parse';
import { showEarlySessions, showEarlyTranscript } from './early-view';
import { firstViewRequests } from './first-view-requests';

/**
 * Starts the first view's API calls before React and the views have loaded (the app's own calls
 * then take these responses, see `first-view-requests.ts`). Nothing without a token (the sign-in
 * shows). The first rows are drawn from the rows' response as soon as it arrives
 * (`early-view.ts`); the promise settles then (at once when there is nothing to draw).
 */
export function prefetchFirstView(): Promise<void> {
  // The printed URL's token leaves the address bar before anything is drawn (the app then finds
  // it kept for the tab).
  const token = takeTokenFromUrl() ?? storedToken();
  if (!token) return Promise.resolve();
  const state = parseUrlState(window.location.search);
  const { rows, others } = firstViewRequests(state);
  // The rows first: the server answers them before the session's details, which count tokens.
  const page = rows ? startEarlyGet(rows.path, rows.query, token) : null;
  for (const request of others) void startEarlyGet(request.path, request.query, token);
  if (!page) return Promise.resolve();
  // This runs from the page's head: the rows go into `#root` once the page has been read.
  return Promise.all([page, documentRead()]).then(([body]) =>
    (state.session ? showEarlyTranscript : showEarlySessions)(body),
  );
}

/** Resolves once the parser has read the whole page (before its deferred scripts run). */
function documentRead(): Promise<void> {
  if (document.readyState !== 'loading') return Promise.resolve();
  return new Promise((resolve) =>
    document.addEventListener('readystatechange', () => resolve(), { once: true }),
  );
}
