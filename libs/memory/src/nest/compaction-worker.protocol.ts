import type { Observable } from 'rxjs';
import type { CompactionJobError, CompactionResult } from '../core/compaction-job';
import { MemoryError } from '../core/errors';

/**
 * What the NATS compaction runner needs of a client: a Nest microservices `ClientProxy` (from
 * `ClientProxyFactory.create` or `ClientsModule`) has it. Declared here so that this package's
 * types do not require `@nestjs/microservices`.
 */
export interface CompactionClientProxy {
  /** Sends a request on `pattern`; the observable emits the worker's reply. */
  send<TResult = unknown, TInput = unknown>(pattern: string, data: TInput): Observable<TResult>;
  /** Closes the client (never called on a client you passed in). */
  close(): unknown;
}

/**
 * A compaction worker's answer to one check (the payload of the reply over NATS). `abandoned`
 * means the worker was shutting down and did not finish: the publisher sends the check again, and
 * another worker takes it.
 */
export type CompactionWorkerReply =
  | { status: 'done'; result: CompactionResult }
  | { status: 'failed'; error: CompactionJobError }
  | { status: 'abandoned'; reason: string };

/**
 * A check a compaction worker reported as failed; `code` is the worker-side `MemoryError` code, if
 * any. Not a `MemoryError` itself: see the list in `core/errors.ts`.
 */
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

/** No compaction worker answered a check in all its tries (none running, or all of them died). */
export class CompactionUnansweredError extends MemoryError {
  readonly code = 'COMPACTION_UNANSWERED';
}
