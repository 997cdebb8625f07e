import type { EmbedOptions, Embedder } from './embedder.interface';
import { normalizeInPlace } from './vector-math';

/** Options of {@link HashedNgramEmbedder}. */
export interface HashedNgramEmbedderOptions {
  /** Vector length. Default 256. */
  dimensions?: number;
  /** Character n-gram length (within words). Default 3. */
  ngram?: number;
}

/**
 * A deterministic, dependency-free embedder: lower-cased words and their character n-grams are
 * hashed (FNV-1a, signed) into a fixed number of buckets, then the vector is normalised.
 *
 * It is **lexical**, not semantic: texts match when they share words or word pieces, so
 * "my dog Rex" and "what is my puppy called" barely match. Use it for fast, exact tests and as a
 * baseline; use `UniversalSentenceEmbedder` or an embeddings API for recall in production.
 */
export class HashedNgramEmbedder implements Embedder {
  readonly dimensions: number;
  readonly model: string;
  private readonly ngram: number;

  /** @throws RangeError when `dimensions` or `ngram` is not a positive integer. */
  constructor(opts: HashedNgramEmbedderOptions = {}) {
    this.dimensions = opts.dimensions ?? 256;
    this.ngram = opts.ngram ?? 3;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1) {
      throw new RangeError(`dimensions must be a positive integer, got ${this.dimensions}`);
    }
    if (!Number.isInteger(this.ngram) || this.ngram < 1) {
      throw new RangeError(`ngram must be a positive integer, got ${this.ngram}`);
    }
    this.model = `hashed-ngram-${this.ngram}-${this.dimensions}`;
  }

  embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<number[][]> {
    opts.signal?.throwIfAborted();
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  private embedOne(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const word of words) {
      this.add(vector, `w:${word}`, 2);
      const padded = `<${word}>`;
      for (let i = 0; i + this.ngram <= padded.length; i++) {
        this.add(vector, padded.slice(i, i + this.ngram), 1);
      }
    }
    return normalizeInPlace(vector);
  }

  private add(vector: number[], feature: string, weight: number): void {
    const hash = fnv1a(feature);
    const bucket = hash % this.dimensions;
    // One more hash bit picks the sign, so unrelated features cancel out on average.
    vector[bucket] = vector[bucket]! + ((hash & 0x80000000) === 0 ? weight : -weight);
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
