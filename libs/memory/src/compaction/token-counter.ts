import type { Message } from '../core/message';

/** The BPE encodings `gpt-tokenizer` ships; o200k_base is GPT-4o's and the default. */
export type TokenEncoding =
  'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base' | 'o200k_harmony';

/** Tokens every message costs beyond its content (the role and the format's separators). */
export const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the model's reply, counted once per non-empty list. */
export const TOKENS_PER_REPLY = 3;
/** Tokens a message's `name` costs beyond its text. */
export const TOKENS_PER_NAME = 1;
/** Tokens each tool call costs beyond its id, name and arguments. */
export const TOKENS_PER_TOOL_CALL = 3;
/**
 * A fixed estimate for an image, whatever its size: what OpenAI charges for a 1024×1024 image at
 * high detail. Images are never counted by the length of their base64 text.
 */
export const TOKENS_PER_IMAGE = 765;

export interface TokenCounterOptions {
  /** Default `o200k_base`. */
  encoding?: TokenEncoding;
}

type CountTokens = (text: string) => number;
type EncodingModule = {
  countTokens: (text: string, options?: { disallowedSpecial?: Set<string> }) => number;
};

/** Only strings at least this long are worth a cache entry of their own. */
const MIN_CACHED_TEXT_LENGTH = 64;
const MAX_CACHED_TEXTS = 10_000;

/**
 * Counts the tokens of a message list with a real BPE tokenizer, as a chat model would see it.
 * Counts are cached per message object (stores hand out frozen messages, reused across turns) and
 * per long text (for stores that decode fresh objects on every read); a message changed in place
 * after it was counted keeps its old count, so copy a message before changing it.
 */
export class TokenCounter {
  readonly encoding: TokenEncoding;
  private readonly countTokens: CountTokens;
  private readonly byMessage = new WeakMap<Message, number>();
  private readonly byText = new Map<string, number>();

  constructor(opts: TokenCounterOptions = {}) {
    this.encoding = opts.encoding ?? 'o200k_base';
    this.countTokens = loadEncoding(this.encoding);
  }

  /** Tokens of a whole context: every message plus the reply priming. 0 for an empty list. */
  count(messages: readonly Message[]): number {
    if (messages.length === 0) return 0;
    let total = TOKENS_PER_REPLY;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  /** Tokens of one message, including its role and format overhead. */
  countMessage(message: Message): number {
    const cached = this.byMessage.get(message);
    if (cached !== undefined) return cached;
    let tokens = TOKENS_PER_MESSAGE + this.countText(message.role);
    for (const part of message.parts) {
      tokens +=
        part.type === 'image_url' || part.type === 'image_base64'
          ? TOKENS_PER_IMAGE
          : this.countText(part.text ?? '');
    }
    for (const call of message.toolCalls ?? []) {
      tokens +=
        TOKENS_PER_TOOL_CALL +
        this.countText(call.id) +
        this.countText(call.function.name) +
        this.countText(call.function.arguments);
    }
    if (message.toolCallId) tokens += this.countText(message.toolCallId);
    if (message.name) tokens += TOKENS_PER_NAME + this.countText(message.name);
    this.byMessage.set(message, tokens);
    return tokens;
  }

  /** Tokens of plain text in this counter's encoding. */
  countText(text: string): number {
    if (text.length < MIN_CACHED_TEXT_LENGTH) return this.countTokens(text);
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    const tokens = this.countTokens(text);
    if (this.byText.size >= MAX_CACHED_TEXTS) this.byText.delete(this.byText.keys().next().value!);
    this.byText.set(text, tokens);
    return tokens;
  }
}

/** Loads only the encoding asked for: each one is several megabytes of merge tables. */
function loadEncoding(encoding: TokenEncoding): CountTokens {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily, one encoding at a time */
  const loaders: Record<TokenEncoding, () => EncodingModule> = {
    o200k_base: () => require('gpt-tokenizer/encoding/o200k_base'),
    cl100k_base: () => require('gpt-tokenizer/encoding/cl100k_base'),
    p50k_base: () => require('gpt-tokenizer/encoding/p50k_base'),
    r50k_base: () => require('gpt-tokenizer/encoding/r50k_base'),
    o200k_harmony: () => require('gpt-tokenizer/encoding/o200k_harmony'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const load = loaders[encoding];
  if (!load)
    throw new RangeError(
      `unknown token encoding "${encoding}"; use one of ${Object.keys(loaders).join(', ')}`,
    );
  const { countTokens } = load();
  // User text may contain strings such as "<|endoftext|>": count them as text, never refuse them.
  return (text) => countTokens(text, { disallowedSpecial: new Set() });
}
