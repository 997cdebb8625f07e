import type { CompactionResult } from '../compaction/summary-compactor';
import { BackendUnavailableError, MemoryError } from '../core/errors';
import type { CompactionJobError } from './compaction-job.interface';

/**
 * A compaction worker's answer to one check (the payload of the reply over NATS). `abandoned`
 * means the worker was shutting down and did not finish: the publisher sends the check again, and
 * another worker takes it.
 */
export type CompactionWorkerReply =
  | { status: 'done'; result: CompactionResult }
  | { status: 'failed'; error: CompactionJobError }
  | { status: 'abandoned'; reason: string };

/** An error as the admin API and the NATS reply carry it. */
export function describeCompactionError(error: unknown): CompactionJobError {
  // A job's error is shown to API clients: an outage is described without the driver's text.
  if (error instanceof BackendUnavailableError)
    return { name: error.name, code: error.code, message: error.summary };
  if (error instanceof MemoryError)
    return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/** A check a compaction worker reported as failed; `code` is the worker-side `MemoryError` code, if any. */
export class CompactionWorkerError extends Error {
  readonly code?: string;

  constructor(
    readonly sessionId: string,
    readonly remote: CompactionJobError,
  ) {
    super(
      `the compaction worker failed on session "${sessionId}": ${remote.name}: ${remote.message}`,
    );
    this.name = 'CompactionWorkerError';
    this.code = remote.code;
  }
}
