import type { Embedder } from './embedder.interface';
import { DimensionMismatchError } from './rag.errors';
import { chunkText } from './text-chunker';
import type { VectorStore } from './vector-store.interface';

/** A document to make searchable. Ingesting an id again replaces its chunks. */
export interface RagDocument {
  id: string;
  text: string;
  /** Who the document belongs to (a user, a tenant…); `query` can filter on it. */
  resource?: string;
  /** Handed back with every hit of the document. */
  metadata?: Record<string, unknown>;
}

/** One chunk found by `Rag.query`. */
export interface RagHit {
  documentId: string;
  /** The chunk's position in its document, from 0. */
  chunk: number;
  text: string;
  /** Cosine similarity; higher is closer. */
  score: number;
  metadata: Record<string, unknown>;
}

/** Options of {@link Rag}. */
export interface RagOptions {
  embedder: Embedder;
  /** Give `Rag` a store (or table) of its own: its records use the document id as their session. */
  store: VectorStore;
  /** Longest chunk, in characters. Default 1000. */
  chunkChars?: number;
  /** Characters a chunk repeats from the end of the previous one. Default 100. */
  overlapChars?: number;
}

/**
 * Long-term knowledge outside sessions: `ingest` cuts documents into chunks, embeds and stores
 * them; `query` returns the chunks nearest to a text. Works over any `Embedder` and `VectorStore`.
 */
export class Rag {
  private readonly embedder: Embedder;
  private readonly store: VectorStore;
  private readonly chunkChars: number;
  private readonly overlapChars: number;

  /** @throws DimensionMismatchError when the embedder's and the store's dimensions differ; RangeError for bad sizes. */
  constructor(options: RagOptions) {
    this.embedder = options.embedder;
    this.store = options.store;
    if (this.embedder.dimensions !== this.store.dimensions) {
      throw new DimensionMismatchError(
        `the Rag store (embedder "${this.embedder.model}")`,
        this.store.dimensions,
        this.embedder.dimensions,
      );
    }
    this.chunkChars = options.chunkChars ?? 1000;
    this.overlapChars = options.overlapChars ?? 100;
    if (!Number.isInteger(this.chunkChars) || this.chunkChars < 20) {
      throw new RangeError(`Rag: chunkChars must be a whole number ≥ 20, got ${this.chunkChars}`);
    }
    if (
      !Number.isInteger(this.overlapChars) ||
      this.overlapChars < 0 ||
      this.overlapChars >= this.chunkChars / 2
    ) {
      throw new RangeError(
        `Rag: overlapChars must be a whole number from 0 to below chunkChars / 2, got ${this.overlapChars}`,
      );
    }
  }

  /**
   * Embeds and stores the documents (all of them are checked first); a document ingested again
   * has its old chunks replaced.
   * @returns how many chunks were stored.
   * @throws TypeError naming the bad document, before anything is embedded.
   */
  async ingest(
    documents: readonly RagDocument[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<{ chunks: number }> {
    documents.forEach((doc, i) => {
      if (typeof doc?.id !== 'string' || doc.id === '')
        throw new TypeError(`documents[${i}].id must be a non-empty string`);
      if (typeof doc.text !== 'string')
        throw new TypeError(`documents[${i}].text must be a string`);
    });
    let stored = 0;
    for (const doc of documents) {
      const chunks = chunkText(doc.text, this.chunkChars, this.overlapChars);
      const vectors = await this.embedder.embed(chunks, opts);
      await this.store.delete({ session: doc.id });
      await this.store.upsert(
        chunks.map((text, chunk) => ({
          id: `${doc.id}#${chunk}`,
          vector: vectors[chunk]!,
          session: doc.id,
          resource: doc.resource ?? null,
          cursor: chunk,
          payload: { kind: 'document', text, metadata: doc.metadata ?? {} },
        })),
      );
      stored += chunks.length;
    }
    return { chunks: stored };
  }

  /** The `k` chunks nearest to `text` (of `resource`'s documents only, when given); a blank text finds nothing. */
  async query(
    text: string,
    k = 4,
    opts: { resource?: string; minScore?: number; signal?: AbortSignal } = {},
  ): Promise<RagHit[]> {
    if (!text.trim()) return [];
    const [vector] = await this.embedder.embed([text], opts.signal ? { signal: opts.signal } : {});
    const hits = await this.store.query(
      vector!,
      k,
      opts.resource !== undefined ? { resource: opts.resource } : {},
    );
    return hits
      .filter(
        (hit) =>
          hit.payload.kind === 'document' &&
          (opts.minScore === undefined || hit.score >= opts.minScore),
      )
      .map((hit) => ({
        documentId: hit.session!,
        chunk: hit.cursor!,
        text: String(hit.payload.text),
        score: hit.score,
        metadata: (hit.payload.metadata as Record<string, unknown>) ?? {},
      }));
  }

  /** Removes a document's chunks. */
  async delete(documentId: string): Promise<void> {
    await this.store.delete({ session: documentId });
  }
}
