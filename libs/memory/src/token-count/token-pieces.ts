/**
 * How text is cut into the pieces byte-pair encoding counts one by one, in time linear in its
 * length on any input.
 *
 * A BPE tokenizer first splits text into pieces with its encoding's split pattern (roughly: words
 * with their leading space, up to three digits, runs of punctuation, runs of whitespace), then
 * merges the bytes of each piece; no token spans two pieces, so a text's count is the sum of its
 * pieces' counts. The pattern leaves runs of letters, punctuation and whitespace unbounded, and a
 * piece's merge costs more than linear time (quadratic in `tiktoken`, n log n in
 * `byte-pair-counter.ts`). Ordinary text never has long pieces; 4 MB of spaces or base64 of zeros
 * is one.
 *
 * So a piece longer than {@link MAX_PIECE_CHARS} characters is counted in slices of at most
 * {@link MAX_PIECE_CHARS} characters and {@link MAX_PIECE_BYTES} UTF-8 bytes. The margin: each
 * slice boundary can split what would have been one token into two, so such a piece (a run of one
 * character, a long unbroken word, a CJK sentence without punctuation) may count up to about one
 * token more per slice than a whole-text count (under 1% of its tokens; measured in
 * `token-counter.spec.ts`). Every other text counts exactly as a whole-text count does.
 *
 * The pattern runs on windows of {@link WINDOW_CHARS} characters, so one step never scans more
 * than that, however long a piece is.
 */

/**
 * Longest piece counted as it is; longer ones are counted in slices this long. Longer slices would
 * narrow the margin above and cost a little more per character (n log n).
 */
export const MAX_PIECE_CHARS = 128;

/** Most UTF-8 bytes of one slice of a long piece (as many as 128 ASCII characters). */
export const MAX_PIECE_BYTES = 128;

/**
 * Characters the split pattern scans in one step, so no step holds the event loop for long. A
 * match ending within {@link MAX_PIECE_CHARS} of a window's end may depend on what follows (a word
 * cut short, a lookahead at the window's end), so the next window starts at it again.
 */
export const WINDOW_CHARS = 4096;

/**
 * Walks the pieces of a text, in order, each counted on its own: a whole piece of the split
 * pattern, or a slice of a longer one; they join back into the text. A cursor rather than a
 * generator of strings: the piece is a range of {@link source}, so walking allocates no string
 * or match per piece (on random text, a piece every two to four characters).
 *
 * ```ts
 * const pieces = new TextPieces(text, split);
 * while (pieces.next()) count(pieces.source, pieces.start, pieces.end);
 * ```
 */
export class TextPieces {
  /** The string the current piece is a range of: the text, or the window of it being scanned. */
  source = '';
  start = 0;
  end = 0;
  private readonly pattern: RegExp;
  /** The window of the text being scanned, where it starts in the text and where it ends there. */
  private window = '';
  private windowStart = 0;
  private windowEnd = 0;
  /** Where the next window starts (a piece boundary). */
  private nextWindow = 0;
  /** The slices of a long piece still to hand out: `[sliceFrom, sliceTo)` of the text. */
  private sliceFrom = 0;
  private sliceTo = 0;
  /** Where scanning goes on in the window once the slices are handed out (-1: a new window). */
  private resumeAt = -1;

  /** @param split the encoding's own split pattern (with the `u` flag). */
  constructor(
    private readonly text: string,
    split: RegExp,
  ) {
    this.pattern = stickyOf(split);
  }

  /** Moves to the next piece; false at the end of the text. */
  next(): boolean {
    for (;;) {
      if (this.sliceFrom < this.sliceTo) return this.nextSlice();
      if (this.resumeAt >= 0) {
        if (this.scan()) return true;
        continue;
      }
      if (this.nextWindow >= this.text.length) return false;
      this.openWindow(this.nextWindow);
    }
  }

  private openWindow(at: number): void {
    const end = Math.min(this.text.length, at + WINDOW_CHARS);
    this.windowStart = at;
    this.windowEnd = end;
    this.nextWindow = end;
    this.window = at === 0 && end === this.text.length ? this.text : this.text.slice(at, end);
    this.resumeAt = 0;
  }

  /** Finds the next piece in the window; false when the window is done (or hands over slices). */
  private scan(): boolean {
    const window = this.window;
    const lastWindow = this.windowEnd === this.text.length;
    const from = this.resumeAt;
    if (from >= window.length) {
      this.resumeAt = -1;
      return false;
    }
    this.pattern.lastIndex = from;
    // A character no alternative takes (none of OpenAI's patterns leaves one) is a piece alone.
    const to =
      this.pattern.test(window) && this.pattern.lastIndex > from
        ? this.pattern.lastIndex
        : from + 1;
    const pieceStart = this.windowStart + from;
    const pieceEnd = this.windowStart + to;
    const nearEnd = !lastWindow && pieceEnd > this.windowEnd - MAX_PIECE_CHARS;
    if (to - from > MAX_PIECE_CHARS) {
      // A long piece cut off by the window: hand out its whole slices, read the rest again.
      const slicesEnd = nearEnd ? wholeSlicesEnd(this.text, pieceStart, pieceEnd) : pieceEnd;
      this.sliceFrom = pieceStart;
      this.sliceTo = slicesEnd;
      if (nearEnd) {
        this.nextWindow = slicesEnd;
        this.resumeAt = -1;
      } else {
        this.resumeAt = to;
      }
      return false;
    }
    if (nearEnd) {
      this.nextWindow = pieceStart;
      this.resumeAt = -1;
      return false;
    }
    this.source = window;
    this.start = from;
    this.end = to;
    this.resumeAt = to;
    return true;
  }

  private nextSlice(): true {
    const to = sliceEnd(this.text, this.sliceFrom, this.sliceTo);
    this.source = this.text;
    this.start = this.sliceFrom;
    this.end = to;
    this.sliceFrom = to;
    return true;
  }
}

/** The sticky form of each split pattern, made once: every text's walk would otherwise compile it. */
const sticky = new WeakMap<RegExp, RegExp>();

/**
 * `split` as a sticky pattern: every character belongs to some piece of these patterns, so pieces
 * follow each other and `test` gives each one's end without building a match. Walks share it:
 * each sets `lastIndex` right before its `test`, and nothing runs between the two.
 */
function stickyOf(split: RegExp): RegExp {
  let pattern = sticky.get(split);
  if (!pattern) {
    pattern = new RegExp(split.source, `${split.flags.replace(/[gy]/g, '')}y`);
    sticky.set(split, pattern);
  }
  return pattern;
}

/**
 * Where the whole slices of `text[start, end)` end: those cut by the size limit rather than by
 * `end` (at least one, since the piece is longer than a slice).
 */
function wholeSlicesEnd(text: string, start: number, end: number): number {
  let cut = start;
  for (let next = sliceEnd(text, start, end); next < end; next = sliceEnd(text, next, end)) {
    cut = next;
  }
  return cut > start ? cut : sliceEnd(text, start, end);
}

/**
 * The end of the slice of a long piece that starts at `from`: at most {@link MAX_PIECE_CHARS}
 * UTF-16 units and {@link MAX_PIECE_BYTES} UTF-8 bytes (128 emoji would be 512 bytes), never
 * between the two halves of a surrogate pair.
 */
function sliceEnd(text: string, from: number, end: number): number {
  const limit = Math.min(end, from + MAX_PIECE_CHARS);
  let bytes = 0;
  let i = from;
  while (i < limit) {
    const code = text.charCodeAt(i);
    const pair = isHighSurrogate(code) && i + 1 < end;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    const units = pair ? 2 : 1;
    if (i > from && (bytes + size > MAX_PIECE_BYTES || i + units > limit)) break;
    bytes += size;
    i += units;
  }
  return i;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
