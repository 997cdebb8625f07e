/**
 * The dashboard's entry, kept tiny: it starts the first view's API calls, draws the first rows
 * from them, then runs React and the app (`app/boot.tsx`, preloaded by `index.html`, so it
 * downloads beside the data).
 */
import { prefetchFirstView } from './app/prefetch';
import { loadSessionPage } from './app/session-page-loader';
import { parseUrlState } from './lib/url-state';
import './styles/app.css';

/** The longest React waits for the first rows (a slow or hung API call must not hold the app). */
const EARLY_VIEW_WAIT_MS = 500;

const firstRows = prefetchFirstView();
// React and the app run once the first rows are drawn: run first, on a new browser profile they
// hold the main thread (compiling 200 KB) while the data already waits to be shown.
void Promise.race([
  firstRows,
  new Promise((resolve) => setTimeout(resolve, EARLY_VIEW_WAIT_MS)),
]).then(() => {
  if (parseUrlState(window.location.search).session) void loadSessionPage();
  void import('./app/boot');
});
