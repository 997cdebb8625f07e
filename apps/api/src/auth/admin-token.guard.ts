import { CanActivate, ExecutionContext, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { ApiHttpError } from '../errors/api-http.error';
import { defaultRoleFor, roleAllows, type AdminRole } from './admin-role';
import { AdminTokens, type TokenIdentity } from './admin-tokens';
import { clientAddress, FailedAuthLimiter } from './failed-auth.limiter';
import { REQUIRED_ROLE_KEY } from './required-role.decorator';
import { setRequestIdentity } from './request-identity';

/**
 * Who the `Authorization` header signs in as, or why it does not (401 `UNAUTHORIZED`): missing,
 * not a bearer token, or no configured token.
 */
export function bearerIdentity(
  tokens: AdminTokens,
  header: string | undefined,
): { identity: TokenIdentity } | { failure: ApiHttpError } {
  if (!header) {
    return {
      failure: new ApiHttpError(
        401,
        'UNAUTHORIZED',
        'missing "Authorization: Bearer <token>" header',
      ),
    };
  }
  const match = /^Bearer\s+(.+)$/i.exec(header);
  const identity = match ? tokens.identify(match[1]!.trim()) : null;
  if (!identity) {
    return {
      failure: new ApiHttpError(401, 'UNAUTHORIZED', 'the bearer token is not an admin token'),
    };
  }
  return { identity };
}

/** 403 `FORBIDDEN_ROLE`: `identity`'s role is below the `needed` one; the message names both. */
export function forbiddenRole(identity: TokenIdentity, needed: AdminRole): ApiHttpError {
  return new ApiHttpError(
    403,
    'FORBIDDEN_ROLE',
    `this needs the ${needed} role${needed === 'admin' ? '' : ' or higher'}; the token "${identity.name}" has the ${identity.role} role`,
  );
}

/** 429 `TOO_MANY_AUTH_FAILURES` for a client blocked `retryAfterS` more seconds; sets `Retry-After`. */
export function tooManyAuthFailures(res: Response, retryAfterS: number): ApiHttpError {
  res.setHeader('Retry-After', String(retryAfterS));
  return new ApiHttpError(
    429,
    'TOO_MANY_AUTH_FAILURES',
    `too many requests with a wrong admin token from this address; retry in ${retryAfterS} s`,
  );
}

/**
 * Lets a request through only with `Authorization: Bearer <token>` of a configured token whose
 * role the route allows (`@RequiredRole`, else viewer for reads and admin for changes): 401
 * otherwise, 403 `FORBIDDEN_ROLE` for a role too low. A wrong token counts toward the client's
 * failed-attempt limit like at the gate (429 once over it). The server's auth gate
 * (`adminAuthGate`) already checks every `/api` request before routing; the guard keeps each
 * controller safe on its own (in another app, or in a test module).
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    private readonly tokens: AdminTokens,
    private readonly reflector: Reflector,
    @Optional() private readonly limiter?: FailedAuthLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const verdict = bearerIdentity(this.tokens, request.headers.authorization);
    if ('identity' in verdict) {
      const needed =
        this.reflector.getAllAndOverride<AdminRole | undefined>(REQUIRED_ROLE_KEY, [
          context.getHandler(),
          context.getClass(),
        ]) ?? defaultRoleFor(request.method);
      if (!roleAllows(verdict.identity.role, needed)) throw forbiddenRole(verdict.identity, needed);
      setRequestIdentity(request, verdict.identity);
      return true;
    }
    if (this.limiter && request.headers.authorization !== undefined) {
      const blockedS = await this.limiter.recordFailure(clientAddress(request));
      if (blockedS > 0) throw tooManyAuthFailures(http.getResponse<Response>(), blockedS);
    }
    throw verdict.failure;
  }
}
