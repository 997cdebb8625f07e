import type { ApiErrorBody } from './api-types';
import { earlyLoad, type EarlyGet } from './early-load';

/**
 * An admin API call that did not succeed: an HTTP error (`status` and the server's stable `code`),
 * or a network failure (`status` 0, code `NETWORK_ERROR`).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }

  /** The token was missing, wrong or expired. */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

/** Where the API is: '' (the page's own origin) in the app; a test server's origin in tests. */
let apiBase = '';

/** Points the client at another origin (component tests use a local HTTP server). */
export function setApiBase(origin: string): void {
  apiBase = origin.replace(/\/$/, '');
}

/** The absolute or same-origin URL of an API path. */
export function apiUrl(path: string): string {
  return `${apiBase}${path}`;
}

/** Reads the tab's admin token; set by the auth feature. */
let readToken: () => string | null = () => null;

/** Tells the client where the bearer token comes from (called once by the app). */
export function setTokenSource(source: () => string | null): void {
  readToken = source;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  json?: unknown;
  signal?: AbortSignal;
  /** Query parameters; undefined and null values are left out. */
  query?: Record<string, string | number | boolean | null | undefined>;
  /** Use this token instead of the tab's (the sign-in form checks a typed one). */
  token?: string;
}

function withQuery(path: string, query: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** How long a GET started before the app mounted waits to be used (ms). */
const EARLY_TTL_MS = 10_000;

/**
 * Starts `GET path?query` now, while the app's code still loads, so that the first view's data is
 * on its way before React mounts. The app's own call for the same URL and token, within a few
 * seconds, takes this response instead of asking again (or its parsed body, see
 * {@link takeEarlyBody}). Resolves to the parsed body (null when the call failed), for the first
 * rows drawn before React (`app/early-view.ts`).
 */
export function startEarlyGet(
  path: string,
  query: RequestOptions['query'],
  token: string,
): Promise<unknown> {
  const url = apiUrl(withQuery(path, query));
  const response = fetch(url, {
    headers: { accept: 'application/json', authorization: `Bearer ${token}` },
  });
  const entry: EarlyGet = { token, response, startedAt: Date.now() };
  // A copy of the body for the early view: cloned in the first callback on the response, so
  // before the app's own call can read the body. Errors are reported to whoever takes the response.
  const body = response
    .then((res) => (res.ok ? res.clone().json() : null))
    .then((parsed: unknown) => {
      if (parsed !== null) entry.body = parsed;
      return parsed;
    })
    .catch(() => null);
  earlyLoad().requests.set(url, entry);
  return body;
}

/** The early GET of `url` for `token`, removed from the hand-off; null when none is usable. */
function takeEarly(url: string, token: string | null): EarlyGet | null {
  const requests = earlyLoad().requests;
  const entry = requests.get(url);
  if (!entry) return null;
  requests.delete(url);
  return entry.token === token && Date.now() - entry.startedAt < EARLY_TTL_MS ? entry : null;
}

/**
 * The parsed body of the early `GET path?query` when it has already arrived (2xx), taken so that
 * nothing reads that response again; undefined when it has not (the app's own call then takes the
 * response as it comes). Lets the app's first render start from the data the early rows show.
 */
export function takeEarlyBody(
  path: string,
  query: RequestOptions['query'],
  token: string | null,
): unknown {
  const url = apiUrl(withQuery(path, query));
  const entry = earlyLoad().requests.get(url);
  if (entry?.body === undefined) return undefined;
  return takeEarly(url, token)?.body;
}

/** `fetch` with the bearer token; throws {@link ApiError} for any answer but 2xx. */
export async function apiFetch(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers = new Headers({ accept: 'application/json' });
  const token = options.token ?? readToken();
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (options.json !== undefined) headers.set('content-type', 'application/json');
  const url = apiUrl(withQuery(path, options.query));
  const started = (options.method ?? 'GET') === 'GET' ? takeEarly(url, token)?.response : null;
  let response: Response;
  try {
    response = await (started ??
      fetch(url, {
        method: options.method ?? 'GET',
        headers,
        body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
        signal: options.signal,
      }));
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, 'NETWORK_ERROR', 'the admin server could not be reached');
  }
  if (!response.ok) {
    let body: Partial<ApiErrorBody> = {};
    try {
      body = (await response.json()) as Partial<ApiErrorBody>;
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(
      response.status,
      body.code ?? `HTTP_${response.status}`,
      body.message ?? `${response.status} ${response.statusText}`,
      body.field,
    );
  }
  return response;
}

/** {@link apiFetch} and read the JSON answer (undefined for 204). */
export async function apiJson<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await apiFetch(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}
