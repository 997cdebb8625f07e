/** The `fetch` the tests use against an admin server: its bearer token and a JSON body. */

/** `fetch` on a server's path with the token (unless `token` is null) and `json` as the body. */
export type AdminRequest = (
  path: string,
  init?: RequestInit & { token?: string | null; json?: unknown },
) => Promise<Response>;

/** The {@link AdminRequest} of the server at `baseUrl`, sending `defaultToken` unless told otherwise. */
export function adminRequest(baseUrl: string, defaultToken: string): AdminRequest {
  return (path, init = {}) => {
    const { token = defaultToken, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${baseUrl}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
}
