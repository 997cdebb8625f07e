import type { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import type { Request } from 'express';

/** The throttler name the failed attempts are counted under. */
const THROTTLER_NAME = 'admin-auth-failures';

/** How many failed attempts a client may make, and for how long it is then blocked. */
export interface FailedAuthLimits {
  /** Failed attempts allowed per window. */
  limit: number;
  /** The counting window, and how long a client that went over the limit is blocked (ms). */
  windowMs: number;
}

/** The address failed attempts are counted under: the peer's, or Express's `req.ip` behind a trusted proxy. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * Counts wrong admin tokens per client address in `@nestjs/throttler`'s storage; once a
 * client has failed more than `limit` times within `windowMs` it is blocked for `windowMs`, and a
 * blocked client is refused before its token is even compared, so guessing does not go faster by
 * including the right token now and then.
 * Provided by the app module (`useFactory`), so Nest stops the storage's sweep timer at shutdown.
 */
export class FailedAuthLimiter implements OnApplicationShutdown {
  private readonly storage = new ThrottlerStorageService();

  constructor(private readonly limits: FailedAuthLimits) {}

  /** Seconds until `client` may try again; 0 when it is not blocked. */
  blockedForSeconds(client: string): number {
    const record = this.storage.storage.get(client);
    if (!record?.isBlocked) return 0;
    const remainingMs = record.blockExpiresAt - Date.now();
    return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
  }

  /**
   * Counts one failed attempt of `client`.
   * @returns seconds `client` is now blocked for; 0 while it is within the limit.
   */
  async recordFailure(client: string): Promise<number> {
    const { windowMs, limit } = this.limits;
    const record = await this.storage.increment(client, windowMs, limit, windowMs, THROTTLER_NAME);
    return record.isBlocked ? Math.max(1, record.timeToBlockExpire) : 0;
  }

  onApplicationShutdown(): void {
    this.storage.onApplicationShutdown();
  }
}
