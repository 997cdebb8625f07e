import { SessionTooLargeError } from '../core/errors';
import type { SessionDocument } from '../core/session-document';
import { encodeSessionValue } from './nats-session-value';
import { writeSizeBytes } from './nats-size-limit';
import type { PendingChange } from './nats-write.queue';

/** What one batch does to a document: per caller its document or error, and the value to write. */
export interface BatchPlan {
  outcomes: Array<{ doc: SessionDocument | null } | { error: unknown }>;
  doc: SessionDocument;
  /** Null when no change in the batch changed the document. */
  value: Uint8Array | null;
  /** A change threw or made the value too large: not to be trusted on a stale read. */
  doubtful: boolean;
}

/**
 * Applies the batch's changes in order to `doc`. A change that throws, or that makes the value
 * exceed `limit` (checked only when the whole batch does not fit), is left out and answered with
 * its error; the others still apply.
 */
export function planBatch(
  doc: SessionDocument,
  batch: readonly PendingChange[],
  revision: number,
  limit: number,
  session: string,
  final: boolean,
): BatchPlan {
  const apply = (checkEach: boolean): BatchPlan => {
    const outcomes: BatchPlan['outcomes'] = [];
    let current = doc;
    let doubtful = false;
    for (const pending of batch) {
      let next: SessionDocument | null;
      try {
        next = pending.change(current, pending.unknownOutcome);
      } catch (error) {
        outcomes.push({ error });
        doubtful = true;
        continue;
      }
      if (next !== null && checkEach) {
        const size = writeSizeBytes(encodeSessionValue(next).length, revision, session);
        if (size > limit) {
          outcomes.push({ error: new SessionTooLargeError(session, size, limit) });
          doubtful = true;
          continue;
        }
      }
      if (next !== null) current = next;
      outcomes.push({ doc: next });
    }
    const value = current === doc ? null : encodeSessionValue(current);
    return { outcomes, doc: current, value, doubtful };
  };
  const whole = apply(false);
  if (whole.value === null || writeSizeBytes(whole.value.length, revision, session) <= limit)
    return whole;
  if (!final) return { ...whole, doubtful: true };
  return apply(true);
}

/** Answers each caller of `batch` with its outcome. */
export function settle(batch: readonly PendingChange[], outcomes: BatchPlan['outcomes']): void {
  batch.forEach((pending, i) => {
    const outcome = outcomes[i]!;
    if ('error' in outcome) pending.reject(outcome.error);
    else pending.resolve(outcome.doc);
  });
}

/** Answers every caller of `batch` with `error`. */
export function rejectAll(batch: readonly PendingChange[], error: unknown): void {
  for (const pending of batch) pending.reject(error);
}

/** The callers still waiting; those who aborted are answered with their signal's reason. */
export function withoutAborted(batch: PendingChange[]): PendingChange[] {
  return batch.filter((pending) => {
    if (!pending.opts?.signal?.aborted) return true;
    pending.reject(pending.opts.signal.reason ?? new Error('the write was aborted'));
    return false;
  });
}
