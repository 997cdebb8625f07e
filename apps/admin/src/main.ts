/**
 * The dashboard's entry: runs React and the app (`app/boot.tsx`, preloaded by `index.html`, so it
 * downloads beside the data) once the early-load script (`early-load.ts`, inlined in the page)
 * has drawn the first rows.
 */
import { loadSessionPage } from './app/session-page-loader';
import { earlyLoad } from './lib/early-load';
import { parseUrlState } from './lib/url-state-parse';
import './styles/app.css';

/** The longest React waits for the first rows (a slow or hung API call must not hold the app). */
const EARLY_VIEW_WAIT_MS = 500;

// Run first, on a new browser profile React and the app hold the main thread (compiling 200 KB)
// while the data already waits to be shown.
const early = earlyLoad();
void Promise.race([
  early.firstRows,
  new Promise((resolve) => setTimeout(resolve, EARLY_VIEW_WAIT_MS)),
]).then(() => {
  // The app's own calls would otherwise ask for what the early script has not asked for yet.
  early.startRest();
  if (parseUrlState(window.location.search).session) void loadSessionPage();
  void import('./app/boot');
});
