import type { Tiktoken } from 'tiktoken';
import { MAX_PIECE_CHARS } from './token-chunks';
import { TwoGenerationCache } from './two-generation-cache';

/**
 * Each of the cache's two generations (see `two-generation-cache.ts`) holds at most this many
 * strings and characters. BPE counts
 * a piece on its own bytes, so a piece's count never depends on the text around it: prose repeats
 * a few thousand pieces ("the", " of", ",\n"), a run of one character the same slice thousands of
 * times.
 */
const MAX_GENERATION_PIECES = 50_000;
const MAX_GENERATION_CHARS = 512 * 1024;
/** Longest piece of a chunk cached: words and their punctuation, not the odd long identifier. */
const MAX_CACHED_WORD_CHARS = 32;
/**
 * A chunk with at most this many unseen pieces counts them one by one and remembers them: a
 * tokenizer call costs about 2 µs before any text, a whole chunk about 0.5 ms. One with more is
 * far from counting from the cache: it is counted whole, its pieces remembered, and the next
 * {@link CHUNKS_SKIPPED_WHEN_COLD} chunks are counted by the tokenizer alone, without looking their
 * pieces up or remembering them (likewise the slices after an unseen slice). On text whose pieces
 * rarely repeat (random letters, base64, emoji) the cache would only cost (up to twice the CPU
 * when it looked at every chunk); prose, whose pieces repeat, still fills it within a few hundred
 * chunks.
 */
const MAX_PIECES_COUNTED_ALONE = 32;
const CHUNKS_SKIPPED_WHEN_COLD = 15;
/** Room for the ids of every encoding's tokens (o200k_base has about 200,000). */
const TOKEN_ID_LIMIT = 1 << 18;

/**
 * Counts what `countableChunks` yields with the tokenizer, remembering counts it can reuse:
 * - a slice of a long piece (at most {@link MAX_PIECE_CHARS} characters) by its text, so a run of
 *   one character (spaces, `=`, base64 of zeros) costs one tokenizer call per distinct slice;
 * - a longer chunk (whole short pieces) by its pieces: when every piece was counted before, the
 *   chunk costs a pass of the split pattern and a map lookup per piece instead of a tokenizer call
 *   (prose costs about a third of the CPU). A chunk with unseen pieces is counted by the tokenizer
 *   and its tokens shared out among its pieces by their UTF-8 lengths (BPE never lets a token span
 *   two pieces); when they do not line up (the split pattern written here and the tokenizer's own
 *   disagree on the chunk), nothing is cached and the tokenizer's count stands.
 * Text whose pieces never repeat (random letters, base64, emoji) gains nothing and loses little.
 */
export class TokenPieceCache {
  private readonly counts = new TwoGenerationCache(MAX_GENERATION_PIECES, MAX_GENERATION_CHARS);
  /** Chunks and slices still to count without the cache (see {@link MAX_PIECES_COUNTED_ALONE}). */
  private coldChunks = 0;
  private coldSlices = 0;
  /** UTF-8 length of each token, filled as tokens are met (0: not yet known). */
  private readonly tokenBytes = new Uint16Array(TOKEN_ID_LIMIT);
  private readonly pieces: RegExp;

  constructor(
    private readonly encoder: Tiktoken,
    split: RegExp,
  ) {
    this.pieces = new RegExp(
      split.source,
      split.flags.includes('g') ? split.flags : `${split.flags}g`,
    );
  }

  /** Tokens of `chunk`, as `countableChunks` yields it: a slice of a long piece or whole pieces. */
  count(chunk: string): number {
    if (chunk.length <= MAX_PIECE_CHARS) return this.countSlice(chunk);
    if (this.coldChunks > 0) {
      this.coldChunks--;
      return this.encoder.encode_ordinary(chunk).length;
    }
    const pieces = chunk.match(this.pieces) ?? [];
    let total = 0;
    let unseen: string[] | undefined;
    for (const piece of pieces) {
      const tokens = this.counts.get(piece);
      if (tokens !== undefined) total += tokens;
      else if ((unseen ??= []).push(piece) > MAX_PIECES_COUNTED_ALONE) {
        this.coldChunks = CHUNKS_SKIPPED_WHEN_COLD;
        return this.countAndShareOut(chunk, pieces);
      }
    }
    for (const piece of unseen ?? []) total += this.countAlone(piece);
    return total;
  }

  /** Tokens of a slice of a long piece (or a short text), from the cache unless it is cold. */
  private countSlice(slice: string): number {
    if (this.coldSlices > 0) {
      this.coldSlices--;
      return this.encoder.encode_ordinary(slice).length;
    }
    const tokens = this.counts.get(slice);
    if (tokens !== undefined) return tokens;
    this.coldSlices = CHUNKS_SKIPPED_WHEN_COLD;
    return this.countAlone(slice);
  }

  /**
   * Tokens of `text` counted on its own, from the cache when it was counted before.
   * `encode_ordinary` counts strings such as "<|endoftext|>" in user text as text, never refuses them.
   */
  private countAlone(text: string): number {
    let tokens = this.counts.get(text);
    if (tokens === undefined) {
      tokens = this.encoder.encode_ordinary(text).length;
      this.remember(text, tokens);
    }
    return tokens;
  }

  private countAndShareOut(chunk: string, pieces: string[]): number {
    const tokens = this.encoder.encode_ordinary(chunk);
    const counts: number[] = [];
    let next = 0;
    for (const piece of pieces) {
      const bytes = Buffer.byteLength(piece);
      const first = next;
      let covered = 0;
      while (covered < bytes && next < tokens.length) covered += this.bytesOf(tokens[next++]!);
      if (covered !== bytes) return tokens.length;
      counts.push(next - first);
    }
    if (next !== tokens.length) return tokens.length;
    pieces.forEach((piece, i) => {
      if (piece.length <= MAX_CACHED_WORD_CHARS) this.remember(piece, counts[i]!);
    });
    return tokens.length;
  }

  private bytesOf(token: number): number {
    if (token >= TOKEN_ID_LIMIT) return this.encoder.decode_single_token_bytes(token).length;
    let bytes = this.tokenBytes[token]!;
    if (bytes === 0) {
      bytes = this.encoder.decode_single_token_bytes(token).length;
      this.tokenBytes[token] = bytes;
    }
    return bytes;
  }

  private remember(text: string, tokens: number): void {
    if (text.length <= MAX_PIECE_CHARS) this.counts.set(detached(text), tokens);
  }
}

/**
 * A copy of `text` that does not keep the message it was cut from alive: V8 keeps a substring of
 * 13 characters or more as a view into the whole string, which a cache entry would then retain.
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
}
