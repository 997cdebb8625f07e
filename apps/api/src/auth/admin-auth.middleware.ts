import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendApiError } from '../errors/api-exception.filter';
import { defaultRoleFor, roleAllows } from './admin-role';
import type { AdminTokens, TokenIdentity } from './admin-tokens';
import { bearerIdentity, forbiddenRole, tooManyAuthFailures } from './admin-token.guard';
import { clientAddress, FailedAuthLimiter } from './failed-auth.limiter';
import { canonicalPath, routedPath } from './gate-path';
import { setRequestIdentity } from './request-identity';
import type { MatchedRoute, RouteRoleTable } from './route-roles';

/** A signed-in request that reached a known route, allowed or refused by its role. */
export interface GateDecision {
  identity: TokenIdentity;
  route: MatchedRoute;
  /** Whether the token's role allows the route (false: the gate answers 403). */
  allowed: boolean;
}

/** What the gate protects and what it leaves open. */
export interface AdminAuthGateOptions {
  /** Path prefixes that need the token, such as `/api` (the prefix itself and everything below it). */
  protectedPrefixes: readonly string[];
  /** Prefixes below a protected one that stay open, such as the OpenAPI page `/api/docs`. */
  openPrefixes: readonly string[];
  /** The app's routes and the role each needs; without it every change needs an admin. */
  routes?: RouteRoleTable;
  /**
   * Called for each signed-in request that reaches a known route, before it is answered (the
   * audit log watches the answer from here).
   */
  onRouteReached?: (req: Request, res: Response, decision: GateDecision) => void;
}

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Answers a refused request without reading its body. When it has one, the connection is closed
 * after the answer (`Connection: close`): the unread bytes would otherwise sit before the
 * client's next request on a kept-alive connection, which the client would then see hang up.
 */
function refuse(req: Request, res: Response, error: Parameters<typeof sendApiError>[1]): void {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined ||
    Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody) res.setHeader('Connection', 'close');
  sendApiError(res, error);
}

/**
 * Express middleware run before any body is read and before routing: every request under a
 * protected prefix needs `Authorization: Bearer <token>` of a configured token (401 otherwise,
 * unknown routes included, so the token check is not a way to map the API), and gets
 * `Cache-Control: no-store`. A token whose role is below what the route needs (see
 * `RouteRoleTable`) gets 403 `FORBIDDEN_ROLE`, its body unread.
 * It decides on two spellings of the path ({@link canonicalPath}, {@link routedPath}), so
 * `/API/…`, `//api/…` or `/%61pi/…` are checked like `/api/…`, and a path whose escaped slashes
 * would step out of `/api` once decoded (`/api/sessions/..%2F..%2Fx`) is checked too. A wrong token counts toward the client's failed-attempt
 * limit; no token at all (a CORS preflight, a browser's first try) does not. A client over its
 * limit gets 429 with `Retry-After`. It answers those itself, in the API's JSON error shape (see
 * `sendApiError`), so a refused request's body is never parsed.
 */
export function adminAuthGate(
  tokens: AdminTokens,
  limiter: FailedAuthLimiter,
  options: AdminAuthGateOptions,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Two spellings: the path fully decoded, and as the router splits it (escaped slashes kept in
    // their segment). Protected when either is under a protected prefix, open only when both are
    // open, so `/api/sessions/..%2F..%2Fx` cannot step out of `/api` past the gate.
    const spellings = [canonicalPath(req.path), routedPath(req.path)];
    const isProtected = (path: string) =>
      options.protectedPrefixes.some((prefix) => under(path, prefix));
    if (!spellings.some(isProtected)) return next();
    res.setHeader('Cache-Control', 'no-store');
    const isOpen = (path: string) =>
      !isProtected(path) || options.openPrefixes.some((prefix) => under(path, prefix));
    if (spellings.every(isOpen)) return next();
    const client = clientAddress(req);
    const blockedS = limiter.blockedForSeconds(client);
    if (blockedS > 0) return refuse(req, res, tooManyAuthFailures(res, blockedS));
    const verdict = bearerIdentity(tokens, req.headers.authorization);
    if ('identity' in verdict) {
      const { identity } = verdict;
      setRequestIdentity(req, identity);
      // Matched as the router will route it, so every spelling of a change is the same route.
      const route =
        options.routes?.match(req.method, spellings[1]!, routedPath(req.path, true)) ?? null;
      const needed = route?.role ?? defaultRoleFor(req.method);
      const allowed = roleAllows(identity.role, needed);
      if (route) options.onRouteReached?.(req, res, { identity, route, allowed });
      return allowed ? next() : refuse(req, res, forbiddenRole(identity, needed));
    }
    if (req.headers.authorization === undefined) return refuse(req, res, verdict.failure);
    limiter
      .recordFailure(client)
      .then(
        (nowBlockedS) =>
          refuse(
            req,
            res,
            nowBlockedS > 0 ? tooManyAuthFailures(res, nowBlockedS) : verdict.failure,
          ),
        next,
      );
  };
}
