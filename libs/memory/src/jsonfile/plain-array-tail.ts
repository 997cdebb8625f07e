/**
 * Where a save appends to a plain session file in place, and what is left of one whose last
 * append was cut off.
 *
 * An append overwrites the array's closing `]` with its batch and a new `]`, in one write. Every
 * appended batch starts with a line break: `\n,{…},{…}]`, or `\n{…},{…}]` into an empty array
 * (JSON allows the whitespace; a whole rewrite has none, since `JSON.stringify` never writes a raw
 * line break, not even inside a string). So in a file a crash (or a reader racing the write)
 * finds without its closing bracket, the batch being written is the one after the last `\n,` (or
 * after `[\n{`), and everything before it is the array as it was before that write.
 */

/** Where the next append writes, as a character index into the file's text. */
export interface PlainArrayTail {
  /** Index of the closing `]` (or, in a torn file, where the cut-off append began). */
  at: number;
  /** The file holds more than the array up to `at` (a cut-off append): the next write cuts it off. */
  torn: boolean;
}

/** The tail of the text of a whole JSON array (what `JSON.parse` accepted): its closing `]`. */
export function wholeArrayTail(text: string): PlainArrayTail {
  return { at: text.lastIndexOf(']'), torn: false };
}

/**
 * For the text of a plain array that does not parse, where the append that was cut off began:
 * the text up to that index plus `]` is the array as it was before it. Null when the text is not
 * an array whose end this library was appending (a torn file of another program, or garbage),
 * which is then corrupt as before.
 */
export function tornArrayTail(text: string): PlainArrayTail | null {
  const scan = scanTopLevel(text);
  if (scan === null) return null;
  if (scan.closedAt !== -1) return { at: scan.closedAt, torn: true };
  if (scan.lastEnd === -1) {
    // No element is whole: the array was empty, unless the cut-off one is not of a batch we wrote.
    if (scan.openBatchStart === -1 && scan.inElement) return null;
    return { at: scan.open + 1, torn: true };
  }
  // After a complete element of a batch comes `,` or `]` at once; whitespace after it is the
  // line break of the next batch (or the file's own before its old `]`): that element was
  // stored before the cut-off write began.
  if (isWhitespace(text.charCodeAt(scan.lastEnd))) return { at: scan.lastEnd, torn: true };
  if (scan.batchStart === -1) return null;
  return { at: scan.batchStart, torn: true };
}

interface TopLevelScan {
  /** Index of the array's `[`. */
  open: number;
  /** Index of the array's closing `]`, or -1 when the text ends (or turns invalid) before it. */
  closedAt: number;
  /** Index just after the last complete element, or -1. */
  lastEnd: number;
  /** Where the batch holding the last complete element began (its `\n`), or -1 when unknown. */
  batchStart: number;
  /** The text ends inside an element. */
  inElement: boolean;
  /** Where the batch of that element began, or -1 when unknown. */
  openBatchStart: number;
}

/**
 * Walks the array's top level, element by element (objects only: a message is an object), until
 * its end, the end of the text, or a character no valid array could hold there (the zeros or the
 * stray bytes of a write a power cut tore).
 */
function scanTopLevel(text: string): TopLevelScan | null {
  let i = 0;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  if (text[i] !== '[') return null;
  const open = i;
  const scan: TopLevelScan = {
    open,
    closedAt: -1,
    lastEnd: -1,
    batchStart: -1,
    inElement: false,
    openBatchStart: -1,
  };
  let startOfCurrent = -1;
  let depth = 1;
  let inString = false;
  for (i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c < 0x20) return scan;
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (depth > 1) {
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 1) {
          scan.lastEnd = i + 1;
          scan.batchStart = startOfCurrent;
          scan.inElement = false;
        }
      } else if (c < 0x20 && !isWhitespace(c)) return scan;
      continue;
    }
    if (isWhitespace(c)) continue;
    if (c === CLOSE_BRACKET) {
      scan.closedAt = i;
      return scan;
    }
    if (c === COMMA) {
      if (text.charCodeAt(i - 1) === NEWLINE) startOfCurrent = i - 1;
    } else if (c === OPEN_BRACE) {
      // The first batch into an empty array: `[`, whitespace, then its `\n{`.
      if (scan.lastEnd === -1 && text.charCodeAt(i - 1) === NEWLINE) startOfCurrent = i - 1;
      depth = 2;
      scan.inElement = true;
      scan.openBatchStart = startOfCurrent;
    } else return scan;
  }
  return scan;
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09;
}
