import type { SessionSaveFailedError } from '../core/errors';
import type { Message } from '../core/message';
import type { CompactionJobRef } from './compaction-job.interface';

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
}

/** What `MemoryService.runTurn` resolves with. */
export interface TurnResult<T> {
  answer: T;
  /** The messages this turn appended (the input, then what the function produced). */
  saved: Message[];
  /**
   * Set when the messages could not be stored (`cause` holds the store's error). The answer is
   * still valid; nothing of this turn was stored, so the caller may save `saved` again later.
   */
  saveError?: SessionSaveFailedError;
  /** The compaction check scheduled after the save; null when none was (save failed, shutdown). */
  compaction: CompactionJobRef | null;
}
