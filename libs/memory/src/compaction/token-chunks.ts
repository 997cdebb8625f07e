/**
 * How text is cut before it reaches the BPE tokenizer, so counting stays linear in its length.
 *
 * A BPE tokenizer first splits text into pieces with its encoding's split pattern (roughly: words
 * with their leading space, up to three digits, runs of punctuation, runs of whitespace), then
 * merges the bytes of each piece. The merge is quadratic in the length of a piece (in `tiktoken` as
 * in other BPE implementations), and the pattern leaves runs of letters, punctuation and whitespace
 * unbounded: 64 KB of spaces is one piece and takes about 4 s, a megabyte takes minutes. Ordinary
 * text never has such pieces.
 *
 * So the text is split here with the same pattern. Pieces of at most {@link MAX_PIECE_CHARS}
 * characters are grouped, in order, into chunks of about {@link MAX_CHUNK_CHARS} characters, each
 * counted by one tokenizer call; a longer piece is counted in slices of at most
 * {@link MAX_PIECE_CHARS} characters and {@link MAX_PIECE_BYTES} UTF-8 bytes. Each call then costs
 * at most a bounded amount, so the whole count is linear.
 *
 * The margin: a chunk ends only at a piece boundary after a non-whitespace character, so ordinary
 * text counts exactly as a whole-text count does. Only a piece longer than
 * {@link MAX_PIECE_CHARS} (a run of one character, base64, a long unbroken word, a CJK sentence
 * without punctuation) is counted differently: each slice boundary can split what would have been
 * one token into two, so such a piece may count up to about one token more per slice (under 1% of
 * its tokens; measured in `token-counter.spec.ts`).
 */

/**
 * Longest piece passed to the tokenizer as it is; longer ones are counted in slices this long.
 * Measured with `tiktoken` on runs of one character: about 0.3 s per megabyte in slices of 128,
 * 0.5 s in 256, 0.9 s in 512, 3 s in 4096; longer slices would only narrow the margin below.
 * Shorter ones gain little, since the merge no longer dominates at 128: per character, random
 * CJK costs 0.66 µs in slices of 16 characters against 0.77 µs in slices of 42 (128 bytes), and
 * runs of one character 0.21 µs in slices of 32 as in 128, while the margin would widen (a run of
 * spaces is one token per 128). Equal slices (runs of one character) are counted once: see
 * `token-piece-cache.ts`.
 */
export const MAX_PIECE_CHARS = 128;

/** Most UTF-8 bytes of one slice of a long piece (as many as 128 ASCII characters). */
export const MAX_PIECE_BYTES = 128;

/**
 * About how many characters one tokenizer call counts at most (a chunk of short pieces): about
 * half a millisecond of work even on text whose pieces never repeat, so an async count that
 * yields between calls never holds the event loop much longer than its slice. Fewer, longer calls
 * would not be cheaper: a call costs about 2 µs before any text, `tiktoken` 0.2 to 0.45 µs a
 * character even where no merge is needed (its split pattern runs inside WebAssembly), and
 * counting eight slices of a long piece in one call, joined by a separator that forms a token of
 * its own, measured the same as eight calls (random emoji, CJK, runs of one character).
 */
export const MAX_CHUNK_CHARS = 1024;

/**
 * A piece longer than {@link MAX_PIECE_CHARS} practically always holds a run of this many
 * whitespace or non-whitespace characters (a piece is one optional leading character, a run of one
 * class of characters, then optional newlines). A short text without such a run is counted as it
 * is: at worst one piece of {@link MAX_CHUNK_CHARS} characters, a few milliseconds.
 */
const LONG_RUN_CHARS = MAX_PIECE_CHARS / 2;

/**
 * Cuts `text` into strings whose token counts add up to the text's count (within the margin above),
 * each short enough for the tokenizer to count in bounded time.
 * @param split the encoding's own split pattern (with the `u` flag).
 */
export function* countableChunks(text: string, split: RegExp): Generator<string, void, undefined> {
  const hasLongRun = hasRunOf(text, LONG_RUN_CHARS);
  if (!hasLongRun && text.length <= MAX_CHUNK_CHARS) {
    if (text !== '') yield text;
    return;
  }
  let start = 0;
  if (!hasLongRun) {
    // Ordinary text: cut before a word's leading space, without running the split pattern.
    while (text.length - start > MAX_CHUNK_CHARS) {
      const cut = wordStart(text, start + MAX_CHUNK_CHARS, start + 2 * MAX_CHUNK_CHARS);
      if (cut < 0) break;
      yield text.slice(start, cut);
      start = cut;
    }
    if (text.length - start <= MAX_CHUNK_CHARS) {
      yield text.slice(start);
      return;
    }
  }
  yield* splitChunks(text, start, split);
}

/**
 * A position in `[from, limit)` where a piece of every encoding's split pattern starts: a space
 * after a non-whitespace character and before a letter (the space leads the next word's piece;
 * the piece before ends at the non-whitespace character). -1 when there is none.
 */
function wordStart(text: string, from: number, limit: number): number {
  const end = Math.min(limit, text.length - 1);
  for (let i = text.indexOf(' ', from); i >= 0 && i < end; i = text.indexOf(' ', i + 1)) {
    if (
      !isWhitespace(text.charCodeAt(i - 1)) &&
      LETTER.test(String.fromCodePoint(text.codePointAt(i + 1)!))
    ) {
      return i;
    }
  }
  return -1;
}

/**
 * Chunks of `text` from `start` (a piece boundary), found with the split pattern itself. The
 * pattern runs on windows of {@link MAX_CHUNK_CHARS} characters, so one step never scans more than
 * that: a match ending within {@link MAX_PIECE_CHARS} of a window's end may depend on what follows,
 * so the next window starts at it again; a long piece is sliced as far as the window shows it.
 */
function* splitChunks(
  text: string,
  start: number,
  split: RegExp,
): Generator<string, void, undefined> {
  const pattern = new RegExp(
    split.source,
    split.flags.includes('g') ? split.flags : `${split.flags}g`,
  );
  let chunkStart = start;
  let chunkEnd = start;
  let pos = start;
  while (pos < text.length) {
    const windowEnd = Math.min(text.length, pos + MAX_CHUNK_CHARS);
    const window = text.slice(pos, windowEnd);
    const lastWindow = windowEnd === text.length;
    let next = windowEnd;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(window); match !== null; match = pattern.exec(window)) {
      const pieceStart = pos + match.index;
      const pieceEnd = pieceStart + match[0].length;
      if (pieceEnd === pieceStart) {
        pattern.lastIndex++;
        continue;
      }
      const nearEnd = !lastWindow && pieceEnd > windowEnd - MAX_PIECE_CHARS;
      if (pieceEnd - pieceStart > MAX_PIECE_CHARS) {
        if (chunkEnd > chunkStart) yield text.slice(chunkStart, chunkEnd);
        // A long piece cut off by the window: count its whole slices, read the rest again.
        const sliceEnd = nearEnd ? wholeSlicesEnd(text, pieceStart, pieceEnd) : pieceEnd;
        yield* pieceSlices(text, pieceStart, sliceEnd);
        chunkStart = chunkEnd = sliceEnd;
        if (nearEnd) {
          next = sliceEnd;
          break;
        }
        continue;
      }
      if (nearEnd) {
        next = pieceStart;
        break;
      }
      if (
        pieceEnd - chunkStart > MAX_CHUNK_CHARS &&
        chunkEnd > chunkStart &&
        !isWhitespace(text.charCodeAt(chunkEnd - 1))
      ) {
        yield text.slice(chunkStart, chunkEnd);
        chunkStart = chunkEnd;
      }
      chunkEnd = pieceEnd;
    }
    pos = next;
  }
  if (chunkEnd > chunkStart) yield text.slice(chunkStart, chunkEnd);
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

/** `text[start, end)` in slices (see {@link sliceEnd}). */
function* pieceSlices(
  text: string,
  start: number,
  end: number,
): Generator<string, void, undefined> {
  for (let from = start; from < end;) {
    const to = sliceEnd(text, from, end);
    yield text.slice(from, to);
    from = to;
  }
}

/**
 * The end of the slice of a long piece that starts at `from`: at most {@link MAX_PIECE_CHARS}
 * UTF-16 units and {@link MAX_PIECE_BYTES} UTF-8 bytes (the merge's cost grows with the square of
 * the bytes: 128 emoji would be 512), never between the two halves of a surrogate pair.
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

const LETTER = /^\p{L}/u;

/** Whether `text` has `length` whitespace, or `length` non-whitespace, characters in a row. */
function hasRunOf(text: string, length: number): boolean {
  let run = 0;
  let runIsSpace = false;
  for (let i = 0; i < text.length; i++) {
    const space = isWhitespace(text.charCodeAt(i));
    run = space === runIsSpace ? run + 1 : 1;
    runIsSpace = space;
    if (run >= length) return true;
  }
  return false;
}

/** What `\s` matches in a JavaScript regular expression (white space and line terminators). */
export function isWhitespace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
