import type { CompactionResult } from '../core/compaction-job';
import type { Message } from '../core/message';

/** How a check runs: `force` compacts below the threshold, `dryRun` computes without saving. */
export interface CompactionRunOptions {
  force?: boolean;
  dryRun?: boolean;
}

/** One check of one session, as a runner receives it (and as it travels over NATS). */
export interface CompactionRequest extends CompactionRunOptions {
  sessionId: string;
}

/**
 * What a check after turns knows besides the request (never sent to a worker): the messages those
 * turns saved, in order, so that a runner may add their tokens to the session's last count instead
 * of counting it all again.
 */
export interface CompactionTurnHint {
  added: readonly Message[];
}

/** Executes one check: in this process, or on a compaction worker. */
export interface CompactionRunner {
  /**
   * Runs the check and resolves with the compactor's result.
   * @param hint given for threshold checks after turns (`afterTurn` with the saved messages).
   * @throws the compactor's error (nothing was changed), or the signal's reason once aborted.
   */
  run(
    request: CompactionRequest,
    signal: AbortSignal,
    hint?: CompactionTurnHint,
  ): Promise<CompactionResult>;
}

/** The handle `enqueue` and `afterTurn` return. */
export interface CompactionJobRef {
  jobId: string;
}

/**
 * Where compaction reports what nobody awaits (a background check that failed, a job state that
 * could not be stored). Nest's `Logger` is one.
 */
export interface CompactionLogger {
  warn(message: string): void;
}

/** The default {@link CompactionLogger} outside Nest: `console.warn`. */
export const consoleCompactionLogger: CompactionLogger = {
  warn: (message) => console.warn(message),
};
