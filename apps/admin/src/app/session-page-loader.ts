import type { SessionPage } from './session-page';

let loaded: typeof SessionPage | null = null;

/**
 * Loads the session view's chunk (the list's first load does not wait for its code). Once loaded,
 * {@link loadedSessionPage} returns it, so a page opened on a session renders it at once instead of
 * suspending (React holds a suspended first render back for up to 300 ms).
 */
export function loadSessionPage(): Promise<{ default: typeof SessionPage }> {
  return import('./session-page').then((module) => {
    loaded = module.SessionPage;
    return { default: module.SessionPage };
  });
}

/** The session view when its chunk is loaded, else null. */
export function loadedSessionPage(): typeof SessionPage | null {
  return loaded;
}
