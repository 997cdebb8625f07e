import type { Message } from '../core/message';
import { loadMergeableRanks, type RankedEncoding } from './bpe-ranks';
import { BytePairCounter } from './byte-pair-counter';
import { TextPieces } from './token-pieces';
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
 * characters (it keeps the strings alive) and this many texts. A store that decodes fresh messages
 * on every read hands the same texts over each turn: from the cache each costs a map lookup
 * instead of a pass of the split pattern and a merge per piece.
 */
const MAX_GENERATION_CHARS = 16 * 1024 * 1024;
const MAX_GENERATION_TEXTS = 100_000;
/** The async counts give the event loop a turn after this much counting. */
const YIELD_AFTER_MS = 5;
/**
 * Pieces counted between two looks at the clock: at most 32K characters, a small share of
 * {@link YIELD_AFTER_MS} even of the costliest text (random CJK; see docs/benchmarks.md).
 */
const PIECES_BETWEEN_CLOCK_CHECKS = 256;

/** What a message costs: its texts to count, plus a fixed overhead (format tokens, images). */
interface MessageCost {
  fixed: number;
  texts: string[];
}

/**
 * Counts the tokens of a message list with a real BPE tokenizer, as a chat model would see it:
 * OpenAI's encodings (the ranks `tiktoken` ships), split by their own patterns
 * (`token-split-patterns.ts`, `token-pieces.ts`), each piece merged by `byte-pair-counter.ts`.
 * Counts equal `tiktoken`'s, except that a piece longer than 128 characters (a run of one
 * character, a long unbroken word) is counted in slices and may count up to about one token more
 * per 128 characters.
 *
 * Time is linear in the text's length on any input: 4 MB (the admin API's body limit) of any kind
 * of text counts in under a second of CPU (each kind's time is in docs/benchmarks.md).
 * {@link count} runs in one go; {@link countAsync} gives the event loop a turn every 5 ms, for
 * contexts that may be large.
 *
 * The first counter of an encoding in a process loads it, which blocks for a moment (reading its
 * 200,000 ranks into typed arrays off the garbage collector's walk, then hashing them into the
 * counter's table):
 * construct counters at startup (the API's module and `SummaryCompactor` do), not inside a
 * request. Every later counter shares it; it is never freed.
 *
 * Counts are cached per message object (stores hand out frozen messages, reused across turns) and
 * per text (for stores that decode fresh objects on every read); a message changed in place
 * after it was counted keeps its old count, so copy a message before changing it. Nothing is
 * persisted: after a restart the first count of a session redoes its texts, in linear time.
 */
export class TokenCounter {
  readonly encoding: TokenEncoding;
  private readonly counter: BytePairCounter;
  private readonly split: RegExp;
  private readonly byMessage = new WeakMap<Message, number>();
  private readonly byText = new TwoGenerationCache(MAX_GENERATION_TEXTS, MAX_GENERATION_CHARS);

  constructor(opts: TokenCounterOptions = {}) {
    this.encoding = opts.encoding ?? 'o200k_base';
    const loaded = loadEncoding(this.encoding);
    this.counter = loaded.counter;
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
      let tokens = cost.fixed + this.countText(message.role);
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
    let tokens = cost.fixed + this.countText(message.role);
    for (const text of cost.texts) tokens += this.countText(text);
    this.byMessage.set(message, tokens);
    return tokens;
  }

  /** Tokens of plain text in this counter's encoding. */
  countText(text: string): number {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    const pieces = new TextPieces(text, this.split);
    while (pieces.next()) tokens += this.counter.count(pieces.source, pieces.start, pieces.end);
    this.byText.set(text, tokens);
    return tokens;
  }

  private async countTextAsync(text: string, clock: YieldClock): Promise<number> {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let tokens = 0;
    let sinceCheck = 0;
    const pieces = new TextPieces(text, this.split);
    while (pieces.next()) {
      tokens += this.counter.count(pieces.source, pieces.start, pieces.end);
      if (++sinceCheck === PIECES_BETWEEN_CLOCK_CHECKS) {
        sinceCheck = 0;
        if (clock.due()) await clock.yield();
      }
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

  due(): boolean {
    return performance.now() - this.sliceStart >= YIELD_AFTER_MS;
  }

  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.sliceStart = performance.now();
  }
}

/** The split pattern of each encoding (see `token-split-patterns.ts`). */
const SPLITS: Record<TokenEncoding, RegExp> = {
  o200k_base: O200K_SPLIT,
  o200k_harmony: O200K_SPLIT,
  cl100k_base: CL100K_SPLIT,
  p50k_base: R50K_SPLIT,
  r50k_base: R50K_SPLIT,
};

/** The ranks each encoding merges by. */
const RANKS: Record<TokenEncoding, RankedEncoding> = {
  o200k_base: 'o200k_base',
  o200k_harmony: 'o200k_base',
  cl100k_base: 'cl100k_base',
  p50k_base: 'p50k_base',
  r50k_base: 'r50k_base',
};

/** One piece counter per set of ranks for the whole process, loaded by the first that needs it. */
const counters = new Map<RankedEncoding, BytePairCounter>();

function loadEncoding(encoding: TokenEncoding): { counter: BytePairCounter; split: RegExp } {
  if (!Object.hasOwn(RANKS, encoding))
    throw new RangeError(
      `unknown token encoding "${encoding}"; use one of ${Object.keys(RANKS).join(', ')}`,
    );
  const ranks = RANKS[encoding];
  let counter = counters.get(ranks);
  if (!counter) {
    counter = new BytePairCounter(loadMergeableRanks(ranks));
    counters.set(ranks, counter);
  }
  return { counter, split: SPLITS[encoding] };
}
