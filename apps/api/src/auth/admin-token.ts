import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The bearer token `/api` expects. `configured` is `MEMORY_ADMIN_TOKEN`; without one a random
 * 32-byte token is made (`generated` true), which the server prints at start-up.
 */
export class AdminToken {
  readonly value: string;
  readonly generated: boolean;
  private readonly digest: Buffer;

  constructor(configured: string | null) {
    this.value = configured ?? randomBytes(32).toString('base64url');
    this.generated = configured === null;
    this.digest = sha256(this.value);
  }

  /** Constant-time comparison: both sides are hashed to equal-length digests first. */
  matches(candidate: string): boolean {
    return timingSafeEqual(sha256(candidate), this.digest);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
