import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendApiError } from '../errors/api-exception.filter';
import { ApiHttpError } from '../errors/api-http.error';
import { AdminToken } from './admin-token';
import { bearerTokenFailure } from './admin-token.guard';
import { FailedAuthLimiter } from './failed-auth.limiter';

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
 * Express middleware run before the body is read and before routing: every request under a
 * protected prefix needs `Authorization: Bearer <admin token>` (401 otherwise, unknown routes
 * included, so the token check is not a way to map the API), and gets `Cache-Control: no-store`.
 * A client over its failed-attempt limit gets 429 with `Retry-After`. It answers those itself, in
 * the API's JSON error shape (see `sendApiError`).
 */
export function adminAuthGate(
  token: AdminToken,
  limiter: FailedAuthLimiter,
  options: AdminAuthGateOptions,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    if (!options.protectedPrefixes.some((prefix) => under(path, prefix))) return next();
    res.setHeader('Cache-Control', 'no-store');
    if (options.openPrefixes.some((prefix) => under(path, prefix))) return next();
    // CORS preflights carry no credentials; the CORS middleware ahead of this one answers them.
    const client = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const blockedS = limiter.blockedForSeconds(client);
    if (blockedS > 0) return sendApiError(res, tooManyFailures(res, blockedS));
    const failure = bearerTokenFailure(token, req.headers.authorization);
    if (!failure) return next();
    limiter
      .recordFailure(client)
      .then(
        (nowBlockedS) =>
          sendApiError(res, nowBlockedS > 0 ? tooManyFailures(res, nowBlockedS) : failure),
        next,
      );
  };
}

function tooManyFailures(res: Response, retryAfterS: number): ApiHttpError {
  res.setHeader('Retry-After', String(retryAfterS));
  return new ApiHttpError(
    429,
    'TOO_MANY_AUTH_FAILURES',
    `too many requests with a wrong or missing admin token from this address; retry in ${retryAfterS} s`,
  );
}
