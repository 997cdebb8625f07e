import type { MergeableRanks } from './bpe-ranks';

/**
 * Most UTF-8 bytes of one piece counted: `TextPieces` hands over at most 128 UTF-16 units (384
 * bytes), and slices of long pieces at most 128 bytes.
 */
export const MAX_COUNTED_PIECE_BYTES = 1024;

/** Positions and ranks share one 32-bit heap key: the rank above, the position below. */
const POSITION_BITS = 11;
const POSITION_MASK = (1 << POSITION_BITS) - 1;
/** Higher than any rank (o200k_base's top rank is under 2^18), so also "no such token". */
const NO_RANK = (1 << (31 - POSITION_BITS)) - 1;
/**
 * Bound once: a global looked up in a hot loop is slow inside a `vm` context (Jest's test
 * environment, some sandboxes), about ten times the whole count.
 */
const imul = Math.imul;
/** Base of the polynomial hash the token table is keyed by (odd, so every power is too). */
const HASH_BASE = 0x01000193;

/**
 * Counts the tokens byte-pair encoding gives one piece of text (one match of the encoding's split
 * pattern, or a slice of a long one): the same merges, in the same order, as `tiktoken`, so the
 * same count.
 *
 * Written here rather than calling `tiktoken` (kept as the source of the ranks and as the
 * reference the tests compare with) because of what a count of megabytes costs there: its
 * WebAssembly build has a fixed cost per call and a cost per character even where nothing merges,
 * and its merge rescans every pair after each merge, quadratic in a piece's length. Here the pairs
 * wait in a binary heap keyed by (rank, position), so a piece of n bytes costs O(n log n), and a
 * pair's rank is one probe of an open-addressing table keyed by a polynomial hash, which prefix
 * hashes give for any range in constant time (the cost per character of each, against
 * `tiktoken`'s, is in docs/benchmarks.md).
 *
 * The lowest (rank, position) merges first, as `tiktoken` takes the leftmost of the lowest ranks.
 * Scratch arrays are reused, so a counter is not reentrant (counting is synchronous).
 */
export class BytePairCounter {
  private readonly table: RankTable;
  private readonly utf8 = new Uint8Array(MAX_COUNTED_PIECE_BYTES);
  private readonly prefixHash = new Int32Array(MAX_COUNTED_PIECE_BYTES + 1);
  private readonly basePower = new Int32Array(MAX_COUNTED_PIECE_BYTES + 1);
  private readonly next = new Int32Array(MAX_COUNTED_PIECE_BYTES + 1);
  private readonly prev = new Int32Array(MAX_COUNTED_PIECE_BYTES + 1);
  private readonly pairRank = new Int32Array(MAX_COUNTED_PIECE_BYTES + 1);
  private readonly heap = new PairHeap(3 * MAX_COUNTED_PIECE_BYTES);

  constructor(ranks: MergeableRanks) {
    this.table = new RankTable(ranks);
    this.basePower[0] = 1;
    for (let i = 1; i <= MAX_COUNTED_PIECE_BYTES; i++) {
      this.basePower[i] = imul(this.basePower[i - 1]!, HASH_BASE);
    }
  }

  /**
   * Tokens of the piece `text[start, end)` (all of `text` by default), at most
   * {@link MAX_COUNTED_PIECE_BYTES} UTF-8 bytes (a RangeError above). A lone surrogate counts as
   * U+FFFD, as `tiktoken` (through `TextEncoder`) reads it.
   */
  count(text: string, start = 0, end = text.length): number {
    const n = this.encode(text, start, end);
    if (n <= 1) return n;
    if (n === 2)
      return this.table.twoBytes[(this.utf8[0]! << 8) | this.utf8[1]!] === NO_RANK ? 2 : 1;
    const { utf8, prefixHash, next, prev, pairRank, heap } = this;
    let hash = 0;
    for (let i = 0; i < n; i++) {
      hash = (imul(hash, HASH_BASE) + utf8[i]! + 1) | 0;
      prefixHash[i + 1] = hash;
    }
    if (this.rankOf(0, n) !== NO_RANK) return 1;

    // Every byte starts as a part; parts form a linked list by their first byte's position.
    heap.clear();
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    for (let i = 0; i + 1 < n; i++) {
      const rank = this.table.twoBytes[(utf8[i]! << 8) | utf8[i + 1]!]!;
      pairRank[i] = rank;
      if (rank !== NO_RANK) heap.push((rank << POSITION_BITS) | i);
    }
    pairRank[n - 1] = NO_RANK;

    let parts = n;
    while (heap.size > 0) {
      const key = heap.pop();
      const at = key & POSITION_MASK;
      // A key whose pair has merged or changed since it was pushed is stale.
      if (next[at] === -1 || pairRank[at] !== key >>> POSITION_BITS) continue;
      const absorbed = next[at]!;
      const after = next[absorbed]!;
      next[at] = after;
      if (after < n) prev[after] = at;
      next[absorbed] = -1;
      parts--;
      const rank = after < n ? this.rankOf(at, next[after]!) : NO_RANK;
      pairRank[at] = rank;
      if (rank !== NO_RANK) heap.push((rank << POSITION_BITS) | at);
      const before = prev[at]!;
      if (before >= 0) {
        const rankBefore = this.rankOf(before, after);
        pairRank[before] = rankBefore;
        if (rankBefore !== NO_RANK) heap.push((rankBefore << POSITION_BITS) | before);
      }
    }
    return parts;
  }

  /** The rank of the piece's bytes `[start, end)`, or {@link NO_RANK} when they are no token. */
  private rankOf(start: number, end: number): number {
    const length = end - start;
    if (length > this.table.longest) return NO_RANK;
    const hash =
      (this.prefixHash[end]! - imul(this.prefixHash[start]!, this.basePower[length]!)) | 0;
    return this.table.find(hash, this.utf8, start, length);
  }

  /** Writes `text[start, end)` as UTF-8 into the scratch buffer; returns its length in bytes. */
  private encode(text: string, start: number, end: number): number {
    const out = this.utf8;
    let n = 0;
    for (let i = start; i < end; i++) {
      let code = text.charCodeAt(i);
      if (n + 4 > MAX_COUNTED_PIECE_BYTES) {
        throw new RangeError(`a piece to count is over ${MAX_COUNTED_PIECE_BYTES} UTF-8 bytes`);
      }
      if (code < 0x80) {
        out[n++] = code;
        continue;
      }
      if (code < 0x800) {
        out[n++] = 0xc0 | (code >> 6);
        out[n++] = 0x80 | (code & 0x3f);
        continue;
      }
      if (code >= 0xd800 && code <= 0xdfff) {
        const low = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          i++;
          out[n++] = 0xf0 | (code >> 18);
          out[n++] = 0x80 | ((code >> 12) & 0x3f);
          out[n++] = 0x80 | ((code >> 6) & 0x3f);
          out[n++] = 0x80 | (code & 0x3f);
          continue;
        }
        code = 0xfffd;
      }
      out[n++] = 0xe0 | (code >> 12);
      out[n++] = 0x80 | ((code >> 6) & 0x3f);
      out[n++] = 0x80 | (code & 0x3f);
    }
    return n;
  }
}

/**
 * The tokens' ranks by their bytes: an open-addressing table, plus a direct one for two bytes.
 * A slot is four adjacent integers (one cache line holds a probe): the bytes' hash, the rank with
 * the length above it, and the bytes themselves when they fit in eight, else the token's index.
 */
class RankTable {
  /** Rank of each two-byte token by its bytes as a 16-bit number, else {@link NO_RANK}. */
  readonly twoBytes = new Int32Array(1 << 16).fill(NO_RANK);
  /** Length of the longest token, in bytes: a longer range is no token. */
  readonly longest: number;
  private readonly mask: number;
  private readonly slots: Int32Array;

  constructor(private readonly tokens: MergeableRanks) {
    const count = tokens.ranks.length;
    let size = 1;
    while (size < count * 2) size <<= 1;
    this.mask = size - 1;
    this.slots = new Int32Array(size * SLOT_INTS);
    let longest = 0;
    for (let token = 0; token < count; token++) {
      const start = tokens.starts[token]!;
      const length = tokens.starts[token + 1]! - start;
      const rank = tokens.ranks[token]!;
      if (rank >= NO_RANK || length > MAX_TOKEN_BYTES) {
        throw new RangeError(
          `token ${token} (rank ${rank}, ${length} bytes) is beyond what counting holds`,
        );
      }
      if (length > longest) longest = length;
      const bytes = tokens.bytes;
      if (length === 2) this.twoBytes[(bytes[start]! << 8) | bytes[start + 1]!] = rank;
      let hash = 0;
      for (let i = start; i < start + length; i++)
        hash = (imul(hash, HASH_BASE) + bytes[i]! + 1) | 0;
      let slot = (hash & this.mask) * SLOT_INTS;
      while (this.slots[slot + 1] !== 0)
        slot = (slot + SLOT_INTS) & (this.mask * SLOT_INTS + SLOT_INTS - 1);
      this.slots[slot] = hash;
      // Rank + 1, so that 0 marks an empty slot.
      this.slots[slot + 1] = ((rank + 1) << 8) | length;
      if (length <= 8) {
        this.slots[slot + 2] = packed(bytes, start, length < 4 ? length : 4);
        this.slots[slot + 3] = length > 4 ? packed(bytes, start + 4, length - 4) : 0;
      } else {
        this.slots[slot + 2] = token;
      }
    }
    this.longest = longest;
  }

  /** The rank of `bytes[start, start + length)`, whose hash is `hash`, or {@link NO_RANK}. */
  find(hash: number, bytes: Uint8Array, start: number, length: number): number {
    const slots = this.slots;
    const wrap = this.mask * SLOT_INTS + SLOT_INTS - 1;
    for (let slot = (hash & this.mask) * SLOT_INTS; ; slot = (slot + SLOT_INTS) & wrap) {
      const rankAndLength = slots[slot + 1]!;
      if (rankAndLength === 0) return NO_RANK;
      if (slots[slot] !== hash || (rankAndLength & 0xff) !== length) continue;
      if (length <= 8) {
        if (slots[slot + 2] !== packed(bytes, start, length < 4 ? length : 4)) continue;
        if (length > 4 && slots[slot + 3] !== packed(bytes, start + 4, length - 4)) continue;
        return (rankAndLength >>> 8) - 1;
      }
      const from = this.tokens.starts[slots[slot + 2]!]!;
      const known = this.tokens.bytes;
      let i = 0;
      while (i < length && known[from + i] === bytes[start + i]) i++;
      if (i === length) return (rankAndLength >>> 8) - 1;
    }
  }
}

/** Integers per slot of {@link RankTable}. */
const SLOT_INTS = 4;
/** A token's length must fit the slot's low byte. */
const MAX_TOKEN_BYTES = 255;

/** Up to four bytes as one integer. */
function packed(bytes: Uint8Array, start: number, length: number): number {
  let value = 0;
  for (let i = 0; i < length; i++) value = (value << 8) | bytes[start + i]!;
  return value;
}

/** A binary min-heap of 32-bit keys in a typed array. */
class PairHeap {
  size = 0;
  private readonly keys: Int32Array;

  constructor(capacity: number) {
    this.keys = new Int32Array(capacity);
  }

  clear(): void {
    this.size = 0;
  }

  push(key: number): void {
    const keys = this.keys;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[i] = keys[parent]!;
      i = parent;
    }
    keys[i] = key;
  }

  pop(): number {
    const keys = this.keys;
    const top = keys[0]!;
    const last = keys[--this.size]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= last) break;
      keys[i] = keys[child]!;
      i = child;
    }
    keys[i] = last;
    return top;
  }
}
