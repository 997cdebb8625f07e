import { useCallback, useSyncExternalStore } from 'react';
import { parseUrlState, type UrlState } from './url-state-parse';

export { parseUrlState, type UrlState };

const listeners = new Set<() => void>();
let cachedSearch: string | null = null;
let cachedState: UrlState | null = null;

function snapshot(): UrlState {
  if (cachedSearch !== window.location.search || !cachedState) {
    cachedSearch = window.location.search;
    cachedState = parseUrlState(cachedSearch);
  }
  return cachedState;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** Writes a new state: `push` adds a history entry (opening a session), else it replaces. */
export function navigate(patch: Partial<UrlState>, mode: 'push' | 'replace' = 'replace'): void {
  const next = { ...snapshot(), ...patch };
  const params = new URLSearchParams();
  if (next.session) params.set('session', next.session);
  if (next.q) params.set('q', next.q);
  if (next.shown && !next.session) params.set('shown', String(next.shown));
  if (next.session && next.view !== 'log') params.set('view', next.view);
  if (!next.session && next.page === 'audit') params.set('page', 'audit');
  const search = params.toString();
  const url = `${window.location.pathname}${search ? `?${search}` : ''}${window.location.hash}`;
  if (mode === 'push') window.history.pushState(null, '', url);
  else window.history.replaceState(null, '', url);
  for (const listener of listeners) listener();
}

/** The current {@link UrlState}, re-rendering on back/forward and on {@link navigate}. */
export function useUrlState(): [UrlState, typeof navigate] {
  const state = useSyncExternalStore(subscribe, snapshot);
  return [state, useCallback(navigate, [])];
}
