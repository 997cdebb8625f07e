import { posix } from 'node:path';

/** A percent-escape of an ASCII character (`%61` is `a`); the only escapes that can spell a route. */
const ASCII_ESCAPE = /%([0-7][0-9a-f])/gi;

/**
 * The one spelling of a request path the auth gate decides on: ASCII percent-escapes decoded
 * (repeatedly, so `%2561` is `a` too), backslashes read as slashes, runs of slashes and `.`/`..`
 * segments collapsed, lower case, no trailing slash. Express matches routes case-insensitively and
 * ignores a trailing slash; reading every other spelling as its route too only refuses more, so no
 * spelling the router accepts can pass the gate unchecked.
 * @param path the request's path without its query (`req.path`).
 */
export function canonicalPath(path: string): string {
  let decoded = path;
  for (let previous = ''; previous !== decoded;) {
    previous = decoded;
    decoded = decoded.replace(ASCII_ESCAPE, (_escape, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
  }
  const normalised = posix.normalize(`/${decoded.replace(/\\/g, '/')}`).toLowerCase();
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}
