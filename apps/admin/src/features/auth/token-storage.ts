/** Where the tab keeps the admin token: sessionStorage, so it lasts for this tab only. */
const KEY = 'agent-memory.admin-token';

export function storedToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string | null): void {
  try {
    if (token) window.sessionStorage.setItem(KEY, token);
    else window.sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: the token then lasts until reload
  }
}

/**
 * Takes `?token=` from the address bar (the URL the server prints), keeps it for the tab and
 * removes it from the address bar and history at once. Returns the token found, if any.
 */
export function takeTokenFromUrl(): string | null {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token === null) return null;
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  if (token) storeToken(token);
  return token || null;
}
