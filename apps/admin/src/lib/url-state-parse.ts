/**
 * Reading the dashboard's place from a query string, without React: the early-load script
 * (inlined in `index.html`) uses it too. `url-state.ts` keeps it in the address bar.
 */

/** The dashboard's place, kept in the address bar so a view can be shared. */
export interface UrlState {
  /** The open session, or null for the list. */
  session: string | null;
  /** The list's search. */
  q: string;
  /** How many list rows were shown (restored on reload). */
  shown: number | null;
  /** The session's tab. */
  view: 'log' | 'model' | 'recall';
  /** Which page shows when no session is open: the list, or the audit log (`?page=audit`). */
  page: 'sessions' | 'audit';
}

const VIEWS = ['log', 'model', 'recall'] as const;

/** Reads {@link UrlState} from a query string. */
export function parseUrlState(search: string): UrlState {
  const params = new URLSearchParams(search);
  const shown = Number(params.get('shown'));
  return {
    session: params.get('session') || null,
    q: params.get('q') ?? '',
    shown: Number.isSafeInteger(shown) && shown > 0 ? shown : null,
    view: VIEWS.find((view) => view === params.get('view')) ?? 'log',
    page: params.get('page') === 'audit' ? 'audit' : 'sessions',
  };
}
