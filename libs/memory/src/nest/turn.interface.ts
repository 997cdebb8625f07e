import type { SessionSaveFailedError } from '../core/errors';
import type { SaveResult } from '../core/memory.interface';
import type { Message } from '../core/message';
import type { CompactionJobRef } from '../compaction/compaction-job.interface';

/** What `MemoryService.runTurn` hands the caller's model function. */
export interface TurnContext {
  /** The session's context before this turn (`retrieve` with the input's text as the query). */
  history: Message[];
  /** This turn's input messages, already validated. */
  input: Message[];
  /** The turn's signal, if one was given; pass it on to the model call. */
  signal?: AbortSignal;
  /**
   * Reports messages as the function produces them (assistant tool calls, tool results, ...). If
   * the function then throws or the turn is aborted, the input and these are saved; a trailing tool
   * call whose results were not all recorded is left out, so the saved history stays valid for a
   * provider. When the function returns, its returned `messages` are saved instead.
   */
  record(...messages: Message[]): void;
}

/** What the caller's model function resolves with. */
export interface TurnOutput<T> {
  /** The turn's answer, returned to the caller unchanged. */
  answer: T;
  /**
   * The messages the turn produced, in order (not the input, not the history). Omit to save what
   * was passed to `record`.
   */
  messages?: Message[];
}

/** The caller's model function for one turn. */
export type TurnFunction<T> = (ctx: TurnContext) => Promise<TurnOutput<T>>;

/** Options of one turn. */
export interface RunTurnOptions {
  /** Cancels the retrieve and is handed to the function; the turn's messages are saved regardless. */
  signal?: AbortSignal;
  /**
   * The idempotency key of the turn's save (1–255 visible ASCII characters). Default: a fresh
   * random UUID. Pass the same key when running a turn again (a client's request id, say): if the
   * first run's messages were stored, the retry stores nothing and the first run's messages stay.
   */
  idempotencyKey?: string;
}

/** What `MemoryService.runTurn` resolves with. */
export interface TurnResult<T> {
  answer: T;
  /** The messages this turn appended (the input, then what the function produced). */
  saved: Message[];
  /**
   * The key the turn's save used. After a `saveError`, save `saved` again with it
   * (`store.save(saved, { idempotencyKey })`): if the failed save was in fact stored, nothing is
   * stored twice.
   */
  idempotencyKey: string;
  /** What the save stored (its cursors; `replayed` when the key was seen before). Absent after a `saveError`. */
  result?: SaveResult;
  /**
   * Set when the messages could not be stored (`cause` holds the store's error). The answer is
   * still valid; nothing of this turn was stored, so the caller may save `saved` again later.
   */
  saveError?: SessionSaveFailedError;
  /** The compaction check scheduled after the save; null when none was (save failed, shutdown). */
  compaction: CompactionJobRef | null;
}
