import { storedToken, takeTokenFromUrl } from '../features/auth/token-storage';
import { startEarlyGet } from '../lib/api-client';
import { parseUrlState } from '../lib/url-state-parse';
import { showEarlySessions, showEarlyTranscript } from './early-view';
import { firstViewRequests } from './first-view-requests';

/**
 * Starts the first view's API calls before React and the views have loaded (the app's own calls
 * then take these responses, see `first-view-requests.ts`). Nothing without a token (the sign-in
 * shows). The first rows are drawn from the rows' response as soon as it arrives
 * (`early-view.ts`): `firstRows` settles then (at once when there is nothing to draw). The other
 * calls start once the rows have answered, or on `startRest` (the app starting) if sooner: alone,
 * the rows' call is answered sooner (a session's details read and count its whole log).
 */
export function prefetchFirstView(): { firstRows: Promise<void>; startRest: () => void } {
  // The printed URL's token leaves the address bar before anything is drawn (the app then finds
  // it kept for the tab).
  const token = takeTokenFromUrl() ?? storedToken();
  if (!token) return { firstRows: Promise.resolve(), startRest: () => {} };
  const state = parseUrlState(window.location.search);
  const { rows, others } = firstViewRequests(state);
  let restStarted = false;
  const startRest = () => {
    if (restStarted) return;
    restStarted = true;
    for (const request of others) void startEarlyGet(request.path, request.query, token);
  };
  if (!rows) {
    startRest();
    return { firstRows: Promise.resolve(), startRest };
  }
  const page = startEarlyGet(rows.path, rows.query, token);
  void page.then(startRest);
  // This runs from the page's head: the rows go into `#root` once the page has been read.
  const firstRows = Promise.all([page, documentRead()]).then(([body]) =>
    (state.session ? showEarlyTranscript : showEarlySessions)(body),
  );
  return { firstRows, startRest };
}

/** Resolves once the parser has read the whole page (before its deferred scripts run). */
function documentRead(): Promise<void> {
  if (document.readyState !== 'loading') return Promise.resolve();
  return new Promise((resolve) =>
    document.addEventListener('readystatechange', () => resolve(), { once: true }),
  );
}
