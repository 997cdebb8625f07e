/**
 * A bounded map from strings to numbers that forgets at a constant cost per entry. Entries go to
 * a recent generation; once it holds `maxEntries` strings or `maxChars` characters it becomes the
 * older generation and the older one is dropped whole. A hit in the older generation copies the
 * entry back, so what is still in use survives. It holds at most twice each bound.
 *
 * Why not one `Map` that deletes its oldest entry on each insert: V8 leaves deleted entries as holes
 * until the map is rebuilt, and `keys().next()` walks them, so a full cache that keeps taking new
 * keys slows down as it goes (on `TokenCounter`'s text cache, each next 100,000 new texts took
 * longer than the last; figures in docs/benchmarks.md). Not `lru-cache`:
 * the hot path is one `Map.get` per piece of text, and this is all the recency it needs.
 */
export class TwoGenerationCache {
  private recent = new Map<string, number>();
  private older = new Map<string, number>();
  private recentChars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): number | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  /** Remembers `value` for `key`; a key longer than `maxChars` is not kept. */
  set(key: string, value: number): void {
    if (key.length > this.maxChars || this.recent.has(key)) return;
    if (this.recent.size >= this.maxEntries || this.recentChars + key.length > this.maxChars) {
      this.older = this.recent;
      this.recent = new Map();
      this.recentChars = 0;
    }
    this.recent.set(key, value);
    this.recentChars += key.length;
  }
}
