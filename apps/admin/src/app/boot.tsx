import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { storedToken } from '../features/auth/token-storage';
import { parseUrlState } from '../lib/url-state-parse';
import { App } from './app';
import { takeFirstRowsData } from './first-rows-data';
import { loadSessionPage } from './session-page-loader';

function mount(): void {
  // Taken right before the first render, so that it holds whatever has arrived by then; React's
  // first commit then replaces the early rows with the same rows.
  const firstRows = takeFirstRowsData(storedToken());
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App firstRows={firstRows} />
    </StrictMode>,
  );
}

/**
 * Mounts the dashboard (loaded by `main.ts` once the first view's data is on its way). A page
 * opened on a session waits for the session view's chunk (already loading, see `main.ts`)
 * so that its first render shows it.
 */
if (parseUrlState(window.location.search).session) {
  void loadSessionPage().then(mount, mount);
} else {
  mount();
}
