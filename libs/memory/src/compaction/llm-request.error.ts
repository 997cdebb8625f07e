import { MemoryError } from '../core/errors';

/**
 * A chat-completions call failed: the provider answered with an HTTP error, the network failed,
 * the call timed out, or the answer was not a chat completion. A caller's own abort is not
 * wrapped: it rejects with the signal's reason.
 */
export class LlmRequestError extends MemoryError {
  /** Stable code to branch on without matching message text. */
  readonly code = 'LLM_REQUEST_FAILED';
  /** The HTTP status, or `undefined` when no response arrived (network failure, timeout). */
  readonly status: number | undefined;
  /** The provider's own error message (`error.message` of its JSON body), when it sent one. */
  readonly providerMessage: string | undefined;

  constructor(
    message: string,
    options: { status?: number; providerMessage?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.providerMessage = options.providerMessage;
  }
}
