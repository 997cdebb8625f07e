import { posix } from 'node:path';

/** A percent-escape of an ASCII character (`%61` is `a`); the only escapes that can spell a route. */
const ASCII_ESCAPE = /%([0-7][0-9a-f])/gi;

/** An ASCII percent-escape other than a slash's or a backslash's (`%2F`, `%5C`). */
const ASCII_ESCAPE_BUT_SEPARATORS = /%(?!2f|5c)([0-7][0-9a-f])/gi;

/**
 * The one spelling of a request path the auth gate decides on: ASCII percent-escapes decoded
 * (repeatedly, so `%2561` is `a` too), backslashes read as slashes, runs of slashes and `.`/`..`
 * segments collapsed, lower case, no trailing slash. Express matches routes case-insensitively and
 * ignores a trailing slash; reading every other spelling as its route too only refuses more, so no
 * spelling the router accepts can pass the gate unchecked.
 * @param path the request's path without its query (`req.path`).
 */
export function canonicalPath(path: string): string {
  const decoded = decodeRepeatedly(path, ASCII_ESCAPE);
  return tidy(posix.normalize(`/${decoded.replace(/\\/g, '/')}`).toLowerCase());
}

/**
 * The spelling of a request path as the router splits it into segments: like
 * {@link canonicalPath}, except that an escaped slash or backslash (`%2F`, `%5C`) stays escaped
 * inside its segment, as the router keeps `a%2Fb` one parameter. `/api/sessions/..%2F..%2Fx` is
 * under `/api` here while its canonical spelling is not: the gate protects a path when either
 * spelling is under a protected prefix, and matches routes on this one.
 * @param path the request's path without its query (`req.path`).
 * @param keepCase leave letters in their case (to read route parameters from); default false.
 */
export function routedPath(path: string, keepCase = false): string {
  const decoded = decodeRepeatedly(path, ASCII_ESCAPE_BUT_SEPARATORS);
  const normalised = posix.normalize(`/${decoded}`);
  return tidy(keepCase ? normalised : normalised.toLowerCase());
}

function decodeRepeatedly(path: string, escape: RegExp): string {
  let decoded = path;
  for (let previous = ''; previous !== decoded;) {
    previous = decoded;
    decoded = decoded.replace(escape, (_escape, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
  }
  return decoded;
}

/** Without a trailing slash (the root stays `/`). */
function tidy(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
