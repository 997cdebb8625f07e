import { useSyncExternalStore } from 'react';

/** The width at and under which the dashboard lays out for a phone (as `app.css`'s media queries). */
export const NARROW_SCREEN_QUERY = '(max-width: 980px)';

function subscribe(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const query = window.matchMedia(NARROW_SCREEN_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

function matches(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(NARROW_SCREEN_QUERY).matches;
}

/** True while the window is phone-sized; follows rotation and resizing. */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, matches, () => false);
}
