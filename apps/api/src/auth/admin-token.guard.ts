import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiHttpError } from '../errors/api-http.error';
import { AdminToken } from './admin-token';

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

/**
 * Lets a request through only with `Authorization: Bearer <admin token>`; 401 otherwise. The
 * server's auth gate (`adminAuthGate`) already checks every `/api` request before routing; the
 * guard keeps each controller safe on its own (in another app, or in a test module).
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly token: AdminToken) {}

  canActivate(context: ExecutionContext): boolean {
    const failure = bearerTokenFailure(
      this.token,
      context.switchToHttp().getRequest<Request>().headers.authorization,
    );
    if (failure) throw failure;
    return true;
  }
}
