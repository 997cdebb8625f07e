import { CanActivate, ExecutionContext, Injectable, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiHttpError } from '../errors/api-http.error';
import { AdminToken } from './admin-token';
import { clientAddress, FailedAuthLimiter } from './failed-auth.limiter';

/**
 * Why an `Authorization` header does not carry the admin token (401 `UNAUTHORIZED`), or null
 * when it does.
 */
export function bearerTokenFailure(
  token: AdminToken,
  header: string | undefined,
): ApiHttpError | null {
  if (!header) {
    return new ApiHttpError(401, 'UNAUTHORIZED', 'missing "Authorization: Bearer <token>" header');
  }
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match || !token.matches(match[1]!.trim())) {
    return new ApiHttpError(401, 'UNAUTHORIZED', 'the bearer token is not the admin token');
  }
  return null;
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
 * Lets a request through only with `Authorization: Bearer <admin token>`; 401 otherwise, and a
 * wrong token counts toward the client's failed-attempt limit like at the gate (429 once over
 * it). The server's auth gate (`adminAuthGate`) already checks every `/api` request before
 * routing; the guard keeps each controller safe on its own (in another app, or in a test module).
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    private readonly token: AdminToken,
    @Optional() private readonly limiter?: FailedAuthLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const failure = bearerTokenFailure(this.token, request.headers.authorization);
    if (!failure) return true;
    if (this.limiter && request.headers.authorization !== undefined) {
      const blockedS = await this.limiter.recordFailure(clientAddress(request));
      if (blockedS > 0) throw tooManyAuthFailures(http.getResponse<Response>(), blockedS);
    }
    throw failure;
  }
}
