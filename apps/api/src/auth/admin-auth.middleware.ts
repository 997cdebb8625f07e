import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendApiError } from '../errors/api-exception.filter';
import { AdminToken } from './admin-token';
import { bearerTokenFailure, tooManyAuthFailures } from './admin-token.guard';
import { clientAddress, FailedAuthLimiter } from './failed-auth.limiter';
import { canonicalPath } from './gate-path';

/** What the gate protects and what it leaves open. */
export interface AdminAuthGateOptions {
  /** Path prefixes that need the token, such as `/api` (the prefix itself and everything below it). */
  protectedPrefixes: readonly string[];
  /** Prefixes below a protected one that stay open, such as the OpenAPI page `/api/docs`. */
  openPrefixes: readonly string[];
}

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Express middleware run before any body is read and before routing: every request under a
 * protected prefix needs `Authorization: Bearer <admin token>` (401 otherwise, unknown routes
 * included, so the token check is not a way to map the API), and gets `Cache-Control: no-store`.
 * It decides on the path's canonical spelling ({@link canonicalPath}), so `/API/…`, `//api/…` or
 * `/%61pi/…` are checked like `/api/…`. A wrong token counts toward the client's failed-attempt
 * limit; no token at all (a CORS preflight, a browser's first try) does not. A client over its
 * limit gets 429 with `Retry-After`. It answers those itself, in the API's JSON error shape (see
 * `sendApiError`), so a refused request's body is never parsed.
 */
export function adminAuthGate(
  token: AdminToken,
  limiter: FailedAuthLimiter,
  options: AdminAuthGateOptions,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = canonicalPath(req.path);
    if (!options.protectedPrefixes.some((prefix) => under(path, prefix))) return next();
    res.setHeader('Cache-Control', 'no-store');
    if (options.openPrefixes.some((prefix) => under(path, prefix))) return next();
    const client = clientAddress(req);
    const blockedS = limiter.blockedForSeconds(client);
    if (blockedS > 0) return sendApiError(res, tooManyAuthFailures(res, blockedS));
    const failure = bearerTokenFailure(token, req.headers.authorization);
    if (!failure) return next();
    if (req.headers.authorization === undefined) return sendApiError(res, failure);
    limiter
      .recordFailure(client)
      .then(
        (nowBlockedS) =>
          sendApiError(res, nowBlockedS > 0 ? tooManyAuthFailures(res, nowBlockedS) : failure),
        next,
      );
  };
}
