import * as crypto from 'node:crypto';
import { batchDigest } from '../core/idempotency';
import type { Message } from '../core/message';

/**
 * Marks a digest of a batch's JSON texts ({@link keyedBatchDigest}); a stored digest without it
 * is {@link batchDigest}'s, as saves of earlier releases recorded. Base64url has no `.`.
 */
const TEXTS_DIGEST = 't1.';

/**
 * The digest a keyed save records with its key: SHA-256 (base64url) of the JSON texts the save
 * sends (`texts`, one per validated message of `batch`), marked with {@link TEXTS_DIGEST}. Those
 * texts are already canonical: validation rebuilds every message with its fields in one order;
 * only `providerData` objects keep the caller's key order, so a batch holding one is digested
 * as {@link batchDigest} does (keys sorted), which re-serialising the batch costs.
 */
export function keyedBatchDigest(batch: readonly Message[], texts: readonly string[]): string {
  if (batch.some(holdsProviderData)) return batchDigest(batch);
  return TEXTS_DIGEST + sha256(texts.join(','));
}

/**
 * Whether a key's `stored` digest names the same batch as `digest` (the batch's
 * {@link keyedBatchDigest}). A digest recorded by an earlier release is compared with the batch's
 * {@link batchDigest}, computed only then (`legacyDigest`); a record without a digest, or a look-up
 * without a batch (`digest` undefined), matches.
 */
export function sameBatchDigest(
  stored: string | null,
  digest: string | undefined,
  legacyDigest: (() => string) | undefined,
): boolean {
  if (stored === null || digest === undefined || stored === digest) return true;
  if (stored.startsWith(TEXTS_DIGEST) || !legacyDigest) return false;
  return stored === legacyDigest();
}

function holdsProviderData(message: Message): boolean {
  return (
    message.providerData !== undefined ||
    message.parts.some((part) => part.providerData !== undefined)
  );
}

/** SHA-256 of `text` (UTF-8), base64url: one call where Node has `crypto.hash` (20.12 and up). */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64url')
    : (text) => crypto.createHash('sha256').update(text).digest('base64url');
