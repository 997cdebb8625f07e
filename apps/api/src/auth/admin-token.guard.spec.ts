import type { ExecutionContext } from '@nestjs/common';
import { AdminToken } from './admin-token';
import { Reflector } from '@nestjs/core';
import { AdminTokenGuard } from './admin-token.guard';
import { AdminTokens } from './admin-tokens';
import { FailedAuthLimiter } from './failed-auth.limiter';

describe('AdminTokenGuard', () => {
  const token = new AdminToken('the-admin-token-0123456789');
  let limiter: FailedAuthLimiter;
  beforeEach(() => {
    limiter = new FailedAuthLimiter({ limit: 2, windowMs: 60_000 });
  });
  afterEach(() => limiter.onApplicationShutdown());

  /** The guard's verdict on one request from `ip` with `authorization` (none when undefined). */
  async function verdict(guard: AdminTokenGuard, ip: string, authorization?: string) {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const response = {
      headers: {} as Record<string, string>,
      setHeader(name: string, value: string) {
        this.headers[name] = value;
      },
    };
    const request = { method: 'GET', headers, ip, socket: {} };
    // Only the HTTP view of the context and the (undecorated) handler are read by the guard.
    const context = {
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
      getHandler: () => function handler() {},
      getClass: () => class Controller {},
    } as unknown as ExecutionContext;
    try {
      return await guard.canActivate(context);
    } catch (error) {
      return (error as { getStatus(): number }).getStatus();
    }
  }

  it('counts a wrong token toward the limit, like the gate, and not a missing one', async () => {
    const guard = new AdminTokenGuard(AdminTokens.only(token), new Reflector(), limiter);
    for (let i = 0; i < 5; i++) expect(await verdict(guard, '10.0.0.1')).toBe(401);
    expect(limiter.blockedForSeconds('10.0.0.1')).toBe(0);
    const wrong = [];
    for (let i = 0; i < 3; i++)
      wrong.push(await verdict(guard, '10.0.0.1', 'Bearer wrong-token-xyz'));
    expect(wrong).toEqual([401, 401, 429]);
    expect(limiter.blockedForSeconds('10.0.0.1')).toBeGreaterThan(0);
    expect(await verdict(guard, '10.0.0.2', `Bearer ${token.value}`)).toBe(true);
  });
});
