import { createHash, type Hash } from 'node:crypto';
import type { PlannedBatch } from './import-plan';

/**
 * The idempotency keys of one imported session's saves, made batch by batch in the plan's order
 * (so the work is spread between the saves rather than done at once): a digest of the session id,
 * the batch's place in the line and every message up to its end. Two imports of one line (run at
 * once, or a rerun after a failure) give a save the same key, so the store's own atomic key check
 * stores it once; a line with other content gives other keys. Messages are hashed as the line
 * decoded them (the same text decodes the same way); comparing content across stores is the
 * import plan's job, not the keys'.
 */
export class ImportKeyChain {
  private readonly chain: Hash;

  constructor(private readonly sessionId: string) {
    this.chain = createHash('sha256').update(sessionId);
  }

  /**
   * Takes the next batch of the plan (every batch, in order, those already stored too) and
   * returns the key of its save.
   * @param skipped how many of its first messages the target already holds (a resume that starts
   * inside a batch saves the rest under a key of its own).
   */
  next(batch: PlannedBatch, skipped = 0): string {
    this.chain.update(JSON.stringify(batch.messages.map((planned) => planned.message)));
    const end = batch.start + batch.messages.length;
    const digest = createHash('sha256')
      .update(`${this.sessionId}\n${batch.start + skipped}\n${end}\n`)
      .update(this.chain.copy().digest())
      .digest('base64url');
    return `import-${digest}`;
  }
}
