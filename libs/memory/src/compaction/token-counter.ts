import { get_encoding, type Tiktoken, type TiktokenEncoding } from 'tiktoken';
import type { Message } from '../core/message';
import { countableChunks } from './token-chunks';
import { TokenPieceCache } from './token-piece-cache';
import { TwoGenerationCache } from './two-generation-cache';
import { CL100K_SPLIT, O200K_SPLIT, R50K_SPLIT } from './token-split-patterns';

/**
 * The BPE encodings counted; o200k_base is GPT-4o's and the default. o200k_harmony adds only
 * special tokens to o200k_base, and user text never counts as special tokens, so it counts as
 * o200k_base.
 */
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

/**
 * Each of the text cache's two generations (see `two-generation-cache.ts`) holds at most this many
 * characters (it keeps the strings alive) and this many texts. Short texts are cached too: a tokenizer call costs about 5 µs before any text, so a
 * store that decodes fresh messages on every read re-counts 10,000 chat messages in about 10 ms
 * from the cache against about 55 ms without it.
 */
const MAX_GENERATION_CHARS = 16 * 1024 * 1024;
const MAX_GENERATION_TEXTS = 100_000;
/** Roles are a closed set; the bound only guards against a store handing out odd ones. */
const MAX_CACHED_ROLES = 16;
/** The async counts give the event loop a turn after this much counting. */
const YIELD_AFTER_MS = 5;

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
 * characters). The tokenizer is `tiktoken`'s WebAssembly build of OpenAI's own, which costs 0.2 to
 * 0.45 µs a character on anything; the counter remembers the counts of pieces and slices it has
 * seen (`token-piece-cache.ts`), so text whose pieces repeat costs less: 4 MB (the admin API's
 * body limit) of a run of one character or of spaces takes about 0.1 to 0.2 s of CPU, prose about
 * 0.25 s per megabyte once its words are known, and text whose pieces never repeat what the
 * tokenizer costs (random emoji or CJK about 1.4 s, random letters about 3 s, base64 of random
 * bytes up to 4.5 s on a loaded machine). {@link count} runs in one go; {@link countAsync} gives
 * the event loop a turn every 5 ms, between tokenizer calls of at most about 1 KB each, for
 * contexts that may be large.
 *
 * The first counter of an encoding in a process loads it, which blocks for about 0.5 s (building
 * its 200,000 ranks inside WebAssembly memory, off the JavaScript heap, so garbage collection never
 * walks them): construct counters at startup (the API's module and `SummaryCompactor` do),
 * not inside a request. Every later counter shares that encoder; it is never freed.
 *
 * Counts are cached per message object (stores hand out frozen messages, reused across turns) and
 * per text (for stores that decode fresh objects on every read); a message changed in place
 * after it was counted keeps its old count, so copy a message before changing it. Nothing is
 * persisted: after a restart the first count of a session redoes its texts, in linear time.
 */
export class TokenCounter {
  readonly encoding: TokenEncoding;
  private readonly pieces: TokenPieceCache;
  private readonly split: RegExp;
  private readonly byMessage = new WeakMap<Message, number>();
  private readonly byText = new TwoGenerationCache(MAX_GENERATION_TEXTS, MAX_GENERATION_CHARS);
  private readonly byRole = new Map<string, number>();

  constructor(opts: TokenCounterOptions = {}) {
    this.encoding = opts.encoding ?? 'o200k_base';
    const loaded = loadEncoding(this.encoding);
    this.pieces = new TokenPieceCache(loaded.encoder, loaded.split);
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
      let tokens = cost.fixed + this.countRole(message.role);
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
    let tokens = cost.fixed + this.countRole(message.role);
    for (const text of cost.texts) tokens += this.countText(text);
    this.byMessage.set(message, tokens);
    return tokens;
  }

  /** Tokens of plain text in this counter's encoding. */
  countText(text: string): number {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    for (const chunk of countableChunks(text, this.split)) tokens += this.pieces.count(chunk);
    this.byText.set(text, tokens);
    return tokens;
  }

  /** A role's tokens, counted once: every message has one of a handful of roles. */
  private countRole(role: string): number {
    let tokens = this.byRole.get(role);
    if (tokens === undefined) {
      tokens = this.pieces.count(role);
      if (this.byRole.size < MAX_CACHED_ROLES) this.byRole.set(role, tokens);
    }
    return tokens;
  }

  private async countTextAsync(text: string, clock: YieldClock): Promise<number> {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    for (const chunk of countableChunks(text, this.split)) {
      await clock.maybeYield();
      tokens += this.pieces.count(chunk);
    }
    this.byText.set(text, tokens);
    return tokens;
  }
}

/** The texts of a message the tokenizer counts (its role aside), and what it costs beyond them. */
function messageCost(message: Message): MessageCost {
  const texts: string[] = [];
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

/** The split pattern each encoding's tokenizer applies first (see `token-chunks.ts`). */
const SPLITS: Record<TokenEncoding, RegExp> = {
  o200k_base: O200K_SPLIT,
  o200k_harmony: O200K_SPLIT,
  cl100k_base: CL100K_SPLIT,
  p50k_base: R50K_SPLIT,
  r50k_base: R50K_SPLIT,
};

/** What `tiktoken` loads for each encoding. */
const ENGINES: Record<TokenEncoding, TiktokenEncoding> = {
  o200k_base: 'o200k_base',
  o200k_harmony: 'o200k_base',
  cl100k_base: 'cl100k_base',
  p50k_base: 'p50k_base',
  r50k_base: 'r50k_base',
};

/** One encoder per encoding for the whole process, loaded by the first counter that needs it. */
const encoders = new Map<TiktokenEncoding, Tiktoken>();

function loadEncoding(encoding: TokenEncoding): { encoder: Tiktoken; split: RegExp } {
  if (!Object.hasOwn(ENGINES, encoding))
    throw new RangeError(
      `unknown token encoding "${encoding}"; use one of ${Object.keys(ENGINES).join(', ')}`,
    );
  const engine = ENGINES[encoding];
  let encoder = encoders.get(engine);
  if (!encoder) {
    encoder = get_encoding(engine);
    encoders.set(engine, encoder);
  }
  return { encoder, split: SPLITS[encoding] };
}
