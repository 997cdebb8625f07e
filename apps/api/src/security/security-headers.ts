import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * `helmet` with what the admin server needs: a content-security policy that allows only this
 * origin's scripts (the dashboard and the OpenAPI page load nothing from elsewhere; styles may be
 * inline, as Swagger UI's are), no framing at all (`frame-ancestors 'none'`, `X-Frame-Options:
 * DENY`), `X-Content-Type-Options: nosniff`, no referrer, and no `X-Powered-By`.
 * @param inlineScriptHashes `'sha256-…'` sources of the inline scripts allowed besides (the
 *   dashboard's early-load script); never `'unsafe-inline'`.
 */
export function securityHeaders(inlineScriptHashes: readonly string[] = []): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        // The server speaks plain HTTP behind its ingress: upgrading sub-requests would break it.
        upgradeInsecureRequests: null,
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  }) as RequestHandler;
}
