/** Rows per "load more" of the sessions list. */
export const SESSIONS_PAGE_SIZE = 50;
/** Largest first page of the list (the server's limit), used to restore a shared view's position. */
export const MAX_SESSIONS_FIRST_PAGE = 500;
/** Messages per page as a session's log is scrolled. */
export const TRANSCRIPT_PAGE_SIZE = 100;

/** The first list page's length: `shown` rows when restoring a shared position. */
export function firstSessionsPageSize(shown: number | null): number {
  return Math.min(Math.max(shown ?? 0, SESSIONS_PAGE_SIZE), MAX_SESSIONS_FIRST_PAGE);
}
