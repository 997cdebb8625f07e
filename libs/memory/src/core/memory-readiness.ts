import type { MemoryBackend } from './backend.interface';
import { MemoryError } from './errors';

/** The readiness probe did not answer within its time limit. */
export class HealthTimeoutError extends MemoryError {
  readonly code = 'HEALTH_TIMEOUT';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${timeoutMs} ms`);
  }
}

/** What `checkMemoryReadiness` found. */
export interface MemoryReadiness {
  /** True when the backend can serve reads and writes now. */
  ready: boolean;
  /** `MemoryBackend.kind` of the store. */
  kind: string;
  /**
   * What the probe learned, for a health response: PostgreSQL `table` and `migrations`
   * (`applied` or `pending`); NATS `server`, `bucket`, `values`, `bytes`, `maxPayload`,
   * `maxValueSize`. Empty for the other kinds.
   */
  details: Record<string, unknown>;
  /**
   * What must exist before the store can serve (PostgreSQL: `table <name>`, `column <t>.<c>`,
   * `trigger <name>`, `procedure <name>_save_group`); empty when ready or when nothing was found missing.
   */
  missing: string[];
  /** Why the backend is not ready; absent when it is. May name hosts and ports. */
  reason?: string;
}

/** Options of `checkMemoryReadiness`. */
export interface MemoryReadinessOptions {
  /** Not ready when the backend has not answered within this (ms). Default 3000. */
  timeoutMs?: number;
}

/** Readiness as `backend.check()` tells it: what a store without a probe of its own answers. */
export async function readinessByCheck(backend: MemoryBackend): Promise<MemoryReadiness> {
  await backend.check();
  return { ready: true, kind: backend.kind, details: {}, missing: [] };
}
