import type { Cursor, Snapshot, StoredSnapshot } from './memory.interface';

/**
 * What one compaction check did (or, on a dry run, would do): the result of
 * `SummaryCompactor.compact`, and what a finished job record holds.
 */
export interface CompactionResult {
  /** Whether a snapshot was saved. */
  compacted: boolean;
  /**
   * Why nothing was (or, on a dry run, would be) saved; absent when a snapshot was saved or a dry
   * run would save one. `no-gain`: the new context would not be smaller than the current one.
   */
  reason?: 'below-threshold' | 'nothing-to-cover' | 'no-gain' | 'conflict';
  /** The cursor of the last covered message. */
  upTo?: Cursor;
  /** Tokens of `retrieve()` before. */
  tokensBefore: number;
  /** Tokens of `retrieve()` after (what it would be, on a dry run). */
  tokensAfter: number;
  /** The saved snapshot; on a dry run or with `no-gain`, the one that was worked out. */
  snapshot?: Snapshot | StoredSnapshot;
}

/** A job's life: waiting for its turn, running, then done or failed. */
export type CompactionJobState = 'queued' | 'running' | 'done' | 'failed';

/** Why a job failed, in a form that serialises (for the admin API). */
export interface CompactionJobError {
  /** The error's class name, such as `SnapshotConflictError`. */
  name: string;
  /** The stable code of a `MemoryError`, when it was one. */
  code?: string;
  message: string;
}

/** A compaction job as `CompactionService.job()` reports it. */
export interface CompactionJob {
  id: string;
  sessionId: string;
  force: boolean;
  dryRun: boolean;
  state: CompactionJobState;
  /** Set once `done`. */
  result?: CompactionResult;
  /** Set once `failed`. */
  error?: CompactionJobError;
  /** ISO 8601 times. */
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
}
