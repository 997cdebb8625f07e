import { createHash } from 'node:crypto';
import { batchDigest } from '../core/idempotency';
import type { PlannedBatch } from './import-plan';

/**
 * The idempotency key of each save of one imported session, in the order of `batches`: a digest
 * of the session id, the batch's place in the line and every message up to its end. Two imports
 * of one line (run at once, or a rerun after a failure) give a save the same key, so the store's
 * own atomic key check stores it once; a line with other content gives other keys.
 * @param skipped how many of the first batch's messages the target already holds (a resume that
 * starts inside a batch saves the rest under a key of its own).
 */
export function importSaveKeys(
  sessionId: string,
  batches: readonly PlannedBatch[],
): (batchIndex: number, skipped: number) => string {
  const chain = createHash('sha256').update(sessionId);
  const prefixDigests = batches.map((batch) =>
    chain
      .update(batchDigest(batch.messages.map((planned) => planned.message)))
      .copy()
      .digest(),
  );
  return (batchIndex, skipped) => {
    const batch = batches[batchIndex]!;
    const end = batch.start + batch.messages.length;
    const digest = createHash('sha256')
      .update(`${sessionId}\n${batch.start + skipped}\n${end}\n`)
      .update(prefixDigests[batchIndex]!)
      .digest('base64url');
    return `import-${digest}`;
  };
}
