import type { EmbedOptions, Embedder } from './embedder.interface';
import { abortableDelay } from '../core/timeout';
import { EmbeddingFailedError } from './rag.errors';

/** Options of {@link OpenAiCompatibleEmbedder}. */
export interface OpenAiCompatibleEmbedderOptions {
  /** Such as `https://api.openai.com/v1`; requests go to `${baseUrl}/embeddings`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when not empty. */
  apiKey?: string;
  /** Such as `text-embedding-3-small`. */
  model: string;
  /**
   * The vectors' length. Sent as the request's `dimensions` (models such as
   * `text-embedding-3-*` shorten their output to it); every answer is checked against it.
   * Default 1536.
   */
  dimensions?: number;
  /** Whether to send `dimensions` in the request. Default: true when `dimensions` is given. */
  sendDimensions?: boolean;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Tries per request on HTTP 429, 5xx or a network error. Default 4. */
  maxAttempts?: number;
  /** Wait before the second try (ms); it doubles per try, with jitter, up to 30 s. Default 500. */
  retryBaseMs?: number;
  /** Time limit of one request (ms). Default 60000. */
  timeoutMs?: number;
  /**
   * Largest answer read (bytes); a longer one fails the request without retries, before it is
   * parsed. Default: room for `batchSize` × `dimensions` numbers as JSON (32 bytes each) plus
   * 64 KiB.
   */
  maxResponseBytes?: number;
}

const DEFAULT_DIMENSIONS = 1536;
const MAX_RETRY_DELAY_MS = 30_000;
/** What one vector component may take as JSON text (`-0.012345678901234567,`) in the default answer cap. */
const BYTES_PER_NUMBER = 32;
/** The answer cap's room for everything but the numbers. */
const RESPONSE_OVERHEAD_BYTES = 64 * 1024;

/** An answer longer than its cap: read no further. */
class ResponseTooLargeError extends Error {}

/** The body of `response` as text, or a {@link ResponseTooLargeError} once it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new ResponseTooLargeError();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new ResponseTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Embeddings from any server that speaks OpenAI's `POST /embeddings` (OpenAI, Azure OpenAI,
 * Ollama, vLLM, LiteLLM, …) over the global `fetch`: texts go in batches of `batchSize`; HTTP 429
 * and 5xx answers and network errors are retried with exponential backoff (a `Retry-After`
 * header is honoured, up to 30 s); an abort stops at once, between tries included; an answer
 * longer than `maxResponseBytes` is refused while it is read.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly url: string;
  private readonly apiKey: string;
  private readonly sendDimensions: boolean;
  private readonly batchSize: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  /** @throws TypeError / RangeError naming the bad option. */
  constructor(opts: OpenAiCompatibleEmbedderOptions) {
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new TypeError(`OpenAiCompatibleEmbedder: baseUrl is not a URL: "${opts.baseUrl}"`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(
        `OpenAiCompatibleEmbedder: baseUrl must be http(s), got "${opts.baseUrl}"`,
      );
    }
    if (!opts.model) throw new TypeError('OpenAiCompatibleEmbedder: model must not be empty');
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.apiKey = opts.apiKey ?? '';
    this.model = opts.model;
    this.dimensions = positiveInteger('dimensions', opts.dimensions ?? DEFAULT_DIMENSIONS);
    this.sendDimensions = opts.sendDimensions ?? opts.dimensions !== undefined;
    this.batchSize = positiveInteger('batchSize', opts.batchSize ?? 64);
    this.maxAttempts = positiveInteger('maxAttempts', opts.maxAttempts ?? 4);
    this.retryBaseMs = nonNegative('retryBaseMs', opts.retryBaseMs ?? 500);
    this.timeoutMs = positiveInteger('timeoutMs', opts.timeoutMs ?? 60_000);
    this.maxResponseBytes = positiveInteger(
      'maxResponseBytes',
      opts.maxResponseBytes ??
        this.batchSize * this.dimensions * BYTES_PER_NUMBER + RESPONSE_OVERHEAD_BYTES,
    );
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<number[][]> {
    opts.signal?.throwIfAborted();
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(i, i + this.batchSize), opts.signal)));
    }
    return out;
  }

  private async embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const body = JSON.stringify({
      model: this.model,
      // An empty string is refused by some servers; a space embeds as "nothing".
      input: texts.map((text) => (text === '' ? ' ' : text)),
      encoding_format: 'float',
      ...(this.sendDimensions ? { dimensions: this.dimensions } : {}),
    });
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(body, signal);
      if (outcome.ok) return this.parse(outcome.json, texts.length);
      if (!outcome.retry || attempt >= this.maxAttempts) {
        throw new EmbeddingFailedError(
          this.model,
          `${outcome.reason}${attempt > 1 ? ` (after ${attempt} tries)` : ''}`,
          outcome.status,
          { cause: outcome.cause },
        );
      }
      await abortableDelay(outcome.retryAfterMs ?? this.backoffMs(attempt), signal);
    }
  }

  private async post(
    body: string,
    signal?: AbortSignal,
  ): Promise<
    | { ok: true; json: unknown }
    | {
        ok: false;
        retry: boolean;
        reason: string;
        status?: number;
        retryAfterMs?: number;
        cause?: unknown;
      }
  > {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
        },
        body,
        signal: combined,
      });
      text = await readCapped(response, this.maxResponseBytes);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ResponseTooLargeError) {
        return {
          ok: false,
          retry: false,
          reason: `the answer of ${this.url} is longer than maxResponseBytes (${this.maxResponseBytes})`,
        };
      }
      const reason = timeout.aborted
        ? `request to ${this.url} timed out after ${this.timeoutMs} ms`
        : `request to ${this.url} failed: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, retry: true, reason, cause: error };
    }
    if (!response.ok) {
      const status = response.status;
      const retryAfter = Number(response.headers.get('retry-after'));
      return {
        ok: false,
        retry: status === 429 || status >= 500,
        status,
        reason: `HTTP ${status} from ${this.url}: ${errorMessage(text)}`,
        ...(Number.isFinite(retryAfter) && retryAfter >= 0
          ? { retryAfterMs: Math.min(retryAfter * 1000, MAX_RETRY_DELAY_MS) }
          : {}),
      };
    }
    try {
      return { ok: true, json: JSON.parse(text) as unknown };
    } catch (error) {
      return {
        ok: false,
        retry: false,
        status: response.status,
        reason: `the answer of ${this.url} is not JSON`,
        cause: error,
      };
    }
  }

  private parse(json: unknown, count: number): number[][] {
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new EmbeddingFailedError(
        this.model,
        `expected "data" with ${count} embeddings, got ${Array.isArray(data) ? data.length : typeof data}`,
      );
    }
    const out = new Array<number[]>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      const vector = item?.embedding;
      if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number')) {
        throw new EmbeddingFailedError(
          this.model,
          `data[${position}].embedding is not a list of numbers`,
        );
      }
      if (vector.length !== this.dimensions) {
        throw new EmbeddingFailedError(
          this.model,
          `data[${position}].embedding has ${vector.length} dimensions, expected ${this.dimensions} ` +
            '(set the `dimensions` option to what the model returns)',
        );
      }
      if (index < 0 || index >= count) {
        throw new EmbeddingFailedError(
          this.model,
          `data[${position}].index ${index} is out of range`,
        );
      }
      out[index] = vector as number[];
    });
    if (out.some((vector) => vector === undefined)) {
      throw new EmbeddingFailedError(this.model, 'the answer repeats an index and misses another');
    }
    return out;
  }

  private backoffMs(attempt: number): number {
    const base = Math.min(this.retryBaseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
    return base / 2 + Math.random() * (base / 2);
  }
}

function errorMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: quote the start of the body instead
  }
  return body.slice(0, 200);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(
      `OpenAiCompatibleEmbedder: ${name} must be a positive integer, got ${value}`,
    );
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`OpenAiCompatibleEmbedder: ${name} must be a number ≥ 0, got ${value}`);
  }
  return value;
}
