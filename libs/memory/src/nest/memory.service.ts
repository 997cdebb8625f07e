import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { MemoryBackend } from '../core/backend.interface';
import { SessionSaveFailedError } from '../core/errors';
import { assertIdempotencyKey } from '../core/idempotency';
import { textContent, type Message } from '../core/message';
import { validateMessage } from '../core/message.codec';
import type { SaveResult, SessionStore } from '../core/memory.interface';
import type { CompactionService } from './compaction.service';
import { answeredToolExchanges } from './turn-messages';
import type { RunTurnOptions, TurnFunction, TurnResult } from './turn.interface';

/**
 * Sessions of the module's backend, and the turn helper that reads, runs, saves and schedules
 * compaction in one call. The module's teardown, not this service, closes the backend.
 */
export class MemoryService {
  private readonly logger = new Logger(MemoryService.name);

  constructor(
    /** The module's backend (the `MEMORY_BACKEND` provider). */
    readonly backend: MemoryBackend,
    private readonly compaction: CompactionService,
  ) {}

  /**
   * The session's store, as `backend.open` returns it.
   * @throws InvalidSessionIdError before any I/O for an invalid id.
   */
  session(sessionId: string): Promise<SessionStore> {
    return this.backend.open(sessionId);
  }

  /**
   * One agent turn against a session:
   * 1. retrieves the session's context with the input's text as the query;
   * 2. calls `fn({ history, input, signal, record })`;
   * 3. saves this turn's new messages only, in one atomic batch: the input, then the returned
   *    `messages` (or, when the function throws or the turn is aborted, the input and what it
   *    passed to `record`, without unanswered tool calls; the function's error is then rethrown);
   * 4. schedules a compaction check (`CompactionService.afterTurn`), off the request path.
   *
   * The save does not use `signal`, so an aborted turn still keeps its messages. It carries one
   * idempotency key per turn (`opts.idempotencyKey`, else a random UUID, returned as
   * `idempotencyKey`), so saving the turn again, or running it again with the same key, never
   * stores it twice. A failed save does not lose the answer: it resolves with `saveError` (a
   * `SessionSaveFailedError`) set. Turns on one session should not overlap; the helper does not
   * queue them.
   * @throws InvalidMessageError for invalid input, InvalidIdempotencyKeyError for a malformed
   * key, both before anything runs; InvalidSessionIdError;
   * the retrieve's error (nothing saved then); the function's own error (after saving the partial turn).
   */
  async runTurn<T>(
    sessionId: string,
    input: Message | readonly Message[],
    fn: TurnFunction<T>,
    opts: RunTurnOptions = {},
  ): Promise<TurnResult<T>> {
    const inputs = (Array.isArray(input) ? input : [input]).map((message, index) =>
      validateMessage(message, `input[${index}]`),
    );
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    assertIdempotencyKey(idempotencyKey);
    const store = await this.backend.open(sessionId);
    const query = inputs
      .map(textContent)
      .filter((text) => text !== '')
      .join('\n');
    const history = await store.retrieve(query, { signal: opts.signal });
    const recorded: Message[] = [];
    let output: Awaited<ReturnType<TurnFunction<T>>>;
    try {
      output = await fn({
        history,
        input: inputs,
        signal: opts.signal,
        record: (...messages) => {
          recorded.push(...messages);
        },
      });
    } catch (error) {
      const partial = [...inputs, ...answeredToolExchanges(recorded)];
      const { saveError } = await this.save(sessionId, store, partial, idempotencyKey);
      if (saveError) {
        this.logger.error(
          `turn on session "${sessionId}" failed and its messages were not saved: ${saveError.message}`,
        );
      } else {
        this.compaction.afterTurn(sessionId, partial);
      }
      throw error;
    }
    const saved = [...inputs, ...(output.messages ?? recorded)];
    const { result, saveError } = await this.save(sessionId, store, saved, idempotencyKey);
    if (saveError) {
      return { answer: output.answer, saved, idempotencyKey, saveError, compaction: null };
    }
    const compaction = this.compaction.afterTurn(sessionId, saved);
    return { answer: output.answer, saved, idempotencyKey, result, compaction };
  }

  private async save(
    sessionId: string,
    store: SessionStore,
    messages: Message[],
    idempotencyKey: string,
  ): Promise<{ result?: SaveResult; saveError?: SessionSaveFailedError }> {
    try {
      return { result: await store.save(messages, { idempotencyKey }) };
    } catch (error) {
      return { saveError: new SessionSaveFailedError(sessionId, error) };
    }
  }
}
