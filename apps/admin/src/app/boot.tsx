import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { parseUrlState } from '../lib/url-state';
import { App } from './app';
import { loadSessionPage } from './session-page-loader';

function mount(): void {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

/**
 * Mounts the dashboard (loaded by `main.ts` once the first view's data is on its way). A page
 * opened on a session waits for the session view's chunk (already loading, see `prefetch.ts`)
 * so that its first render shows it.
 */
if (parseUrlState(window.location.search).session) {
  void loadSessionPage().then(mount, mount);
} else {
  mount();
}
