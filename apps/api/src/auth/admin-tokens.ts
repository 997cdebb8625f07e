import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenIdentity } from '@agent-memory/api-contract';
import type { AdminToken } from './admin-token';
import { SINGLE_ADMIN_TOKEN_NAME, type NamedTokenEntry } from './named-tokens.config';

export type { TokenIdentity };

/**
 * Every bearer token `/api` accepts, each with a name and a role: the named tokens
 * (`MEMORY_ADMIN_TOKENS`, `MEMORY_ADMIN_TOKENS_FILE`) and `MEMORY_ADMIN_TOKEN` (or the random one
 * made without any), which is an admin named `admin`. Only SHA-256 digests are kept.
 */
export class AdminTokens {
  private readonly entries: readonly NamedTokenEntry[];

  /**
   * @param named the configured named tokens.
   * @param single `MEMORY_ADMIN_TOKEN` (or the generated one); null when only named tokens are set.
   */
  constructor(
    named: readonly NamedTokenEntry[],
    readonly single: AdminToken | null,
  ) {
    this.entries = single
      ? [{ name: SINGLE_ADMIN_TOKEN_NAME, role: 'admin', sha256: sha256(single.value) }, ...named]
      : [...named];
  }

  /** The one admin token and nothing else (a test module, or a server without named tokens). */
  static only(token: AdminToken): AdminTokens {
    return new AdminTokens([], token);
  }

  /** How many tokens are accepted. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * Who `candidate` is, or null when it is no configured token. Compares its digest with every
   * entry's in constant time and does not stop at a match, so the time taken tells nothing.
   */
  identify(candidate: string): TokenIdentity | null {
    const digest = sha256(candidate);
    let found: NamedTokenEntry | null = null;
    for (const entry of this.entries) {
      if (timingSafeEqual(digest, entry.sha256) && !found) found = entry;
    }
    return found ? { name: found.name, role: found.role } : null;
  }
}

/** The SHA-256 digest of a token's UTF-8 bytes, as `sha256:<hex>` entries store it. */
export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
