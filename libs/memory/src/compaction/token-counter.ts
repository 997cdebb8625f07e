import type { Message } from '../core/message';
import { countableChunks } from './token-chunks';

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

/** Options of {@link TokenCounter}. */
export interface TokenCounterOptions {
  /** Default `o200k_base`. */
  encoding?: TokenEncoding;
}

/** Options of the counts that yield to the event loop. */
export interface AsyncCountOptions {
  /** Stops the count between two slices; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

type CountTokens = (text: string) => number;
type EncodingModule = {
  countTokens: (text: string, options?: { disallowedSpecial?: Set<string> }) => number;
  setMergeCacheSize: (size: number) => void;
};
type SplitPatterns = {
  O200K_TOKEN_SPLIT_REGEX: RegExp;
  CL100K_TOKEN_SPLIT_REGEX: RegExp;
  R50K_TOKEN_SPLIT_REGEX: RegExp;
};

/** Only strings at least this long are worth a cache entry of their own. */
const MIN_CACHED_TEXT_LENGTH = 64;
/** The text cache holds at most this many characters in all (it keeps the strings alive). */
const MAX_CACHED_CHARS = 32 * 1024 * 1024;
/** The async counts give the event loop a turn after this much counting. */
const YIELD_AFTER_MS = 5;
/**
 * Entries of `gpt-tokenizer`'s merge cache (its default is 100,000). The cache is a `Map` that
 * evicts its oldest key on every insert once full; on text whose pieces never repeat (random
 * letters, base64, hex) V8 then skips ever more deleted slots to find that key, and a megabyte of
 * base64 counted in 10 s instead of 1.4 s. A small cache keeps what ordinary text gains from it
 * (repeated words that are not one token) at a bounded eviction cost.
 */
const MERGE_CACHE_SIZE = 1000;

/** What a message costs: its texts to count, plus a fixed overhead (format tokens, images). */
interface MessageCost {
  fixed: number;
  texts: string[];
}

/**
 * Counts the tokens of a message list with a real BPE tokenizer, as a chat model would see it.
 *
 * Time is linear in the text's length on any input: texts are cut into bounded pieces before the
 * tokenizer (see `token-chunks.ts`; ordinary text counts exactly as a whole-text count does, a run
 * of one character longer than 128 characters may count up to about one token more per 128
 * characters). {@link count} runs in one go (about a millisecond per 4 KB of ordinary text; text
 * whose pieces never repeat, such as base64 or random letters, costs about 1 µs a character, the
 * tokenizer's own lookups); {@link countAsync} gives the event loop a turn every 5 ms, between
 * tokenizer calls of at most about 1 KB each, for contexts that may be large.
 *
 * Counts are cached per message object (stores hand out frozen messages, reused across turns) and
 * per long text (for stores that decode fresh objects on every read); a message changed in place
 * after it was counted keeps its old count, so copy a message before changing it. Nothing is
 * persisted: after a restart the first count of a session redoes its texts, in linear time.
 */
export class TokenCounter {
  readonly encoding: TokenEncoding;
  private readonly countTokens: CountTokens;
  private readonly split: RegExp;
  private readonly byMessage = new WeakMap<Message, number>();
  private readonly byText = new Map<string, number>();
  private cachedChars = 0;

  constructor(opts: TokenCounterOptions = {}) {
    this.encoding = opts.encoding ?? 'o200k_base';
    const loaded = loadEncoding(this.encoding);
    this.countTokens = loaded.countTokens;
    this.split = loaded.split;
  }

  /** Tokens of a whole context: every message plus the reply priming. 0 for an empty list. */
  count(messages: readonly Message[]): number {
    if (messages.length === 0) return 0;
    let total = TOKENS_PER_REPLY;
    for (const message of messages) total += this.countMessage(message);
    return total;
  }

  /**
   * {@link count}, giving the event loop a turn every 5 ms of counting, so a context holding
   * megabytes of text never blocks other requests for long.
   */
  async countAsync(messages: readonly Message[], opts: AsyncCountOptions = {}): Promise<number> {
    opts.signal?.throwIfAborted();
    if (messages.length === 0) return 0;
    const clock = new YieldClock(opts.signal);
    let total = TOKENS_PER_REPLY;
    for (const message of messages) {
      const cached = this.byMessage.get(message);
      if (cached !== undefined) {
        total += cached;
        continue;
      }
      const cost = messageCost(message);
      let tokens = cost.fixed;
      for (const text of cost.texts) tokens += await this.countTextAsync(text, clock);
      this.byMessage.set(message, tokens);
      total += tokens;
    }
    return total;
  }

  /** Tokens of one message, including its role and format overhead. */
  countMessage(message: Message): number {
    const cached = this.byMessage.get(message);
    if (cached !== undefined) return cached;
    const cost = messageCost(message);
    let tokens = cost.fixed;
    for (const text of cost.texts) tokens += this.countText(text);
    this.byMessage.set(message, tokens);
    return tokens;
  }

  /** Tokens of plain text in this counter's encoding. */
  countText(text: string): number {
    const cached = this.cachedText(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    for (const chunk of countableChunks(text, this.split)) tokens += this.countTokens(chunk);
    this.cacheText(text, tokens);
    return tokens;
  }

  private async countTextAsync(text: string, clock: YieldClock): Promise<number> {
    const cached = this.cachedText(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    for (const chunk of countableChunks(text, this.split)) {
      await clock.maybeYield();
      tokens += this.countTokens(chunk);
    }
    this.cacheText(text, tokens);
    return tokens;
  }

  private cachedText(text: string): number | undefined {
    if (text.length < MIN_CACHED_TEXT_LENGTH) return undefined;
    return this.byText.get(text);
  }

  private cacheText(text: string, tokens: number): void {
    if (text.length < MIN_CACHED_TEXT_LENGTH || text.length > MAX_CACHED_CHARS) return;
    while (this.cachedChars + text.length > MAX_CACHED_CHARS && this.byText.size > 0) {
      const oldest = this.byText.keys().next().value!;
      this.byText.delete(oldest);
      this.cachedChars -= oldest.length;
    }
    this.byText.set(text, tokens);
    this.cachedChars += text.length;
  }
}

/** The texts of a message the tokenizer counts, and what it costs beyond them. */
function messageCost(message: Message): MessageCost {
  const texts: string[] = [message.role];
  let fixed = TOKENS_PER_MESSAGE;
  for (const part of message.parts) {
    if (part.type === 'image_url' || part.type === 'image_base64') fixed += TOKENS_PER_IMAGE;
    else texts.push(part.text ?? '');
  }
  for (const call of message.toolCalls ?? []) {
    fixed += TOKENS_PER_TOOL_CALL;
    texts.push(call.id, call.function.name, call.function.arguments);
  }
  if (message.toolCallId) texts.push(message.toolCallId);
  if (message.name) {
    fixed += TOKENS_PER_NAME;
    texts.push(message.name);
  }
  return { fixed, texts };
}

/** Tells an async count when it has run long enough to give the event loop a turn. */
class YieldClock {
  private sliceStart = performance.now();

  constructor(private readonly signal: AbortSignal | undefined) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < YIELD_AFTER_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.sliceStart = performance.now();
  }
}

/** Loads only the encoding asked for: each one is several megabytes of merge tables. */
function loadEncoding(encoding: TokenEncoding): { countTokens: CountTokens; split: RegExp } {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded lazily, one encoding at a time */
  const loaders: Record<TokenEncoding, () => EncodingModule> = {
    o200k_base: () => require('gpt-tokenizer/encoding/o200k_base'),
    cl100k_base: () => require('gpt-tokenizer/encoding/cl100k_base'),
    p50k_base: () => require('gpt-tokenizer/encoding/p50k_base'),
    r50k_base: () => require('gpt-tokenizer/encoding/r50k_base'),
    o200k_harmony: () => require('gpt-tokenizer/encoding/o200k_harmony'),
  };
  const patterns = (): SplitPatterns => require('gpt-tokenizer/encodingParams/constants');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const load = loaders[encoding];
  if (!load)
    throw new RangeError(
      `unknown token encoding "${encoding}"; use one of ${Object.keys(loaders).join(', ')}`,
    );
  const { countTokens, setMergeCacheSize } = load();
  // The encoding module is shared by the whole process; this only bounds its cache.
  setMergeCacheSize(MERGE_CACHE_SIZE);
  const split = patterns();
  const splits: Record<TokenEncoding, RegExp> = {
    o200k_base: split.O200K_TOKEN_SPLIT_REGEX,
    o200k_harmony: split.O200K_TOKEN_SPLIT_REGEX,
    cl100k_base: split.CL100K_TOKEN_SPLIT_REGEX,
    p50k_base: split.R50K_TOKEN_SPLIT_REGEX,
    r50k_base: split.R50K_TOKEN_SPLIT_REGEX,
  };
  // User text may contain strings such as "<|endoftext|>": count them as text, never refuse them.
  const noSpecial = { disallowedSpecial: new Set<string>() };
  return { countTokens: (text) => countTokens(text, noSpecial), split: splits[encoding] };
}
