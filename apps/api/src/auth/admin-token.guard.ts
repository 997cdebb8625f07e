import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiHttpError } from '../errors/api-http.error';
import { AdminToken } from './admin-token';

/** Lets a request through only with `Authorization: Bearer <admin token>`; 401 otherwise. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(private readonly token: AdminToken) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().headers.authorization;
    if (!header) {
      throw new ApiHttpError(401, 'UNAUTHORIZED', 'missing "Authorization: Bearer <token>" header');
    }
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !this.token.matches(match[1]!.trim())) {
      throw new ApiHttpError(401, 'UNAUTHORIZED', 'the bearer token is not the admin token');
    }
    return true;
  }
}
