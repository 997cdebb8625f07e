import { DEFAULT_LLM_TIMEOUT_MS } from '../core/defaults';
import { InvalidMessageError } from '../core/errors';
import type { LlmClient, LlmUsage } from '../core/llm-client.interface';
import type { CallOptions } from '../core/memory.interface';
import type { Message } from '../core/message';
import {
  fromChatCompletionMessage,
  toChatCompletionMessages,
} from '../openai/chat-completion.converter';
import { LlmRequestError } from './llm-request.error';

/** Options of {@link OpenAiCompatibleClient}. */
export interface OpenAiCompatibleClientOptions {
  /** The API root, such as `https://api.openai.com/v1`; requests go to `${baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; an empty string sends no `Authorization` header. */
  apiKey: string;
  /** The model name, such as `gpt-4o-mini`. */
  model: string;
  /** Upper bound for one call, response body included, in milliseconds. Default 60000. */
  timeoutMs?: number;
}

/** How much of a non-JSON error body goes into the error message. */
const MAX_BODY_EXCERPT_CHARS = 500;

/**
 * An {@link LlmClient} for any server speaking the OpenAI chat-completions API (OpenAI, vLLM,
 * Ollama, LiteLLM, …) over the global `fetch`.
 *
 * Messages go out and come back through the `/openai` entry point's converters
 * (`toChatCompletionMessages`, `fromChatCompletionMessage`): reasoning parts are not sent, a failed
 * tool result's text starts with `Error: `.
 */
export class OpenAiCompatibleClient implements LlmClient {
  private readonly url: string;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly timeoutMs: number;

  /** @throws TypeError when `baseUrl` is not an http(s) URL, `model` is empty or `timeoutMs` is not a positive number. */
  constructor(options: OpenAiCompatibleClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch (error) {
      throw new TypeError(
        `OpenAiCompatibleClient: baseUrl ${JSON.stringify(options.baseUrl)} is not a URL ` +
          '(expected something like https://api.openai.com/v1)',
        { cause: error },
      );
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(
        `OpenAiCompatibleClient: baseUrl ${JSON.stringify(options.baseUrl)} must use http or https`,
      );
    }
    if (typeof options.model !== 'string' || options.model.trim() === '') {
      throw new TypeError('OpenAiCompatibleClient: model must be a non-empty model name');
    }
    if (typeof options.apiKey !== 'string') {
      throw new TypeError('OpenAiCompatibleClient: apiKey must be a string (empty for no key)');
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError(
        `OpenAiCompatibleClient: timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`,
      );
    }
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.apiKey = options.apiKey;
    this.model = options.model;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Sends `messages` and returns the first choice's assistant message and the usage, if reported.
   * @param opts.maxTokens sent as `max_tokens`.
   * @throws InvalidMessageError when a message cannot be expressed in the API (nothing is sent).
   * @throws LlmRequestError on an HTTP error (with `status` and the provider's message), a network
   *   failure or timeout (`status` undefined), or an answer that is not a chat completion.
   * Rejects with `opts.signal.reason` when the caller aborts.
   */
  async complete(
    messages: Message[],
    opts: CallOptions & { maxTokens?: number } = {},
  ): Promise<{ message: Message; usage?: LlmUsage }> {
    opts.signal?.throwIfAborted();
    const body: Record<string, unknown> = {
      model: this.model,
      messages: toChatCompletionMessages(messages),
    };
    if (opts.maxTokens !== undefined) body.max_tokens = opts.maxTokens;

    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.apiKey !== '') headers.authorization = `Bearer ${this.apiKey}`;

    let status: number | undefined;
    let text: string;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (timeout.aborted) {
        throw new LlmRequestError(
          `LLM request to ${this.url} timed out after ${this.timeoutMs} ms`,
          { status, cause: error },
        );
      }
      throw new LlmRequestError(`LLM request to ${this.url} failed: ${describe(error)}`, {
        status,
        cause: error,
      });
    }

    if (status < 200 || status >= 300) {
      const providerMessage = providerErrorMessage(text);
      throw new LlmRequestError(
        `LLM request to ${this.url} failed with HTTP ${status}: ` +
          (providerMessage ?? (excerpt(text) || '(empty body)')),
        { status, providerMessage },
      );
    }
    return fromWire(text, this.url, status);
  }
}

function fromWire(
  text: string,
  url: string,
  status: number,
): { message: Message; usage?: LlmUsage } {
  const malformed = (reason: string, cause?: unknown): LlmRequestError =>
    new LlmRequestError(
      `LLM response from ${url} is not a chat completion: ${reason}; body: ${excerpt(text) || '(empty)'}`,
      { status, cause },
    );

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw malformed('the body is not JSON', error);
  }
  const choices = isRecord(body) ? body.choices : undefined;
  if (!Array.isArray(choices) || choices.length === 0) throw malformed('it has no choices');
  const choice: unknown = choices[0];
  const wire = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(wire)) throw malformed('choices[0].message is missing');

  if (wire.role !== undefined && wire.role !== 'assistant') {
    throw malformed('choices[0].message.role is not "assistant"');
  }
  let message: Message;
  try {
    message = fromChatCompletionMessage({ ...wire, role: 'assistant' }, 'choices[0].message');
  } catch (error) {
    if (error instanceof InvalidMessageError) throw malformed(error.message, error);
    throw error;
  }

  const result: { message: Message; usage?: LlmUsage } = { message };
  const usage = isRecord(body) ? body.usage : undefined;
  if (
    isRecord(usage) &&
    typeof usage.prompt_tokens === 'number' &&
    typeof usage.completion_tokens === 'number'
  ) {
    result.usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
  }
  return result;
}

function providerErrorMessage(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    if (!isRecord(body)) return undefined;
    if (isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the caller falls back to an excerpt of the body
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_BODY_EXCERPT_CHARS
    ? `${trimmed.slice(0, MAX_BODY_EXCERPT_CHARS)}…`
    : trimmed;
}

function describe(error: unknown): string {
  // Duck-typed: fetch's errors may come from another realm (jest's sandbox), failing instanceof.
  if (!isErrorLike(error)) return String(error);
  // undici reports "fetch failed" and puts the useful part (ECONNREFUSED …) in `cause`.
  const cause = isErrorLike(error.cause)
    ? `: ${[error.cause.code, error.cause.message].filter(Boolean).join(' ')}`
    : '';
  return `${error.message}${cause}`;
}

function isErrorLike(
  value: unknown,
): value is { message: string; code?: unknown; cause?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
