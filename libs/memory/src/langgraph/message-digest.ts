import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json';

/**
 * A digest of one serialized message (LangGraph's serializer type and bytes) that does not depend
 * on the order of its JSON keys: a message read back from a session, whose store may reorder
 * them, digests as the original did.
 */
export function messageDigest([type, data]: [string, Uint8Array]): string {
  const hash = createHash('sha256').update(type).update('\u0000');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch {
    // Not JSON (a binary serializer): its bytes are its form.
    return hash.update(data).digest('base64url');
  }
  return hash.update(canonicalJson(parsed)).digest('base64url');
}

/**
 * The chain of each digest: a digest of it and every one before it, so two lists of messages
 * share a prefix up to a position exactly when their chains are equal there.
 */
export function chainsOf(digests: readonly string[], start = ''): string[] {
  let chain = start;
  return digests.map((digest) => {
    chain = createHash('sha256')
      .update(chain)
      .update('\u0000')
      .update(digest)
      .digest('base64url')
      .slice(0, 24);
    return chain;
  });
}
