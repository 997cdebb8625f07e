/** Bounds a JSON text is checked against before it is parsed. */
export interface JsonShapeLimits {
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Most objects and arrays in all. */
  maxContainers: number;
}

/** What is wrong with a JSON text's shape: the field at fault (or `body`) and why. */
export interface JsonShapeProblem {
  field: string;
  /** Says what was wrong, without a subject: "nests objects and arrays deeper than 64 levels". */
  reason: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Keys of one object kept as byte ranges; compared pairwise while few, through a set beyond. */
const PAIRWISE_KEYS = 16;

/** One open object or array; reused per depth, so a scan allocates little. */
interface Frame {
  isObject: boolean;
  expectKey: boolean;
  /** `[start, end, start, end, …]` of the keys seen so far (between the quotes). */
  keyRanges: number[];
  /** The decoded keys, once there are many or one has an escape. */
  keySet: Set<string> | null;
}

/**
 * Checks a JSON text's shape in one pass over its bytes, before `JSON.parse` spends time (and
 * stack) on it: at most `limits.maxDepth` levels and `limits.maxContainers` objects and arrays,
 * and no object naming one field twice (`JSON.parse` would silently keep the last). It stops at
 * the first problem, so a text that is too deep or too large costs no more than the bytes up to
 * it. It follows only strings and brackets: malformed JSON is left for `JSON.parse` to refuse.
 * The admin API checks its JSON bodies with it, and the import each JSON Lines line.
 * @param text UTF-8 bytes of the JSON text.
 * @returns the first problem, or null when the shape is within the limits.
 */
export function jsonShapeProblem(
  text: Uint8Array,
  limits: JsonShapeLimits,
): JsonShapeProblem | null {
  const frames: Frame[] = [];
  let depth = 0;
  let containers = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const byte = text[i];
    if (byte === QUOTE) {
      const end = stringEnd(text, i + 1);
      const frame = depth > 0 ? frames[depth - 1]! : undefined;
      if (frame?.isObject && frame.expectKey) {
        frame.expectKey = false;
        const repeated = repeatedKey(text, frame, i + 1, end);
        if (repeated !== null) {
          const shown = repeated.slice(0, 64);
          return {
            field: shown,
            reason: `the field ${JSON.stringify(shown)} is given twice in one object; give each field once`,
          };
        }
      }
      i = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > limits.maxDepth) {
        return {
          field: 'body',
          reason: `nests objects and arrays deeper than ${limits.maxDepth} levels`,
        };
      }
      if (++containers > limits.maxContainers) {
        return {
          field: 'body',
          reason: `holds more than ${limits.maxContainers} objects and arrays`,
        };
      }
      openFrame(frames, depth, byte === OPEN_OBJECT);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (byte === COMMA && depth > 0) {
      const frame = frames[depth - 1]!;
      if (frame.isObject) frame.expectKey = true;
    }
  }
  return null;
}

function openFrame(frames: Frame[], depth: number, isObject: boolean): void {
  let frame = frames[depth - 1];
  if (!frame) {
    frame = { isObject, expectKey: isObject, keyRanges: [], keySet: null };
    frames[depth - 1] = frame;
    return;
  }
  frame.isObject = isObject;
  frame.expectKey = isObject;
  frame.keyRanges.length = 0;
  frame.keySet = null;
}

/** The index of the quote closing the string whose first byte is at `start`. */
function stringEnd(body: Uint8Array, start: number): number {
  let at = start;
  for (;;) {
    const quote = body.indexOf(QUOTE, at);
    if (quote < 0) return body.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= start && body[quote - backslashes - 1] === BACKSLASH) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Notes a key of the object `frame`; returns it when the object already named it, else null. */
function repeatedKey(body: Uint8Array, frame: Frame, start: number, end: number): string | null {
  if (
    frame.keySet === null &&
    frame.keyRanges.length < PAIRWISE_KEYS * 2 &&
    !hasEscape(body, start, end)
  ) {
    const ranges = frame.keyRanges;
    for (let k = 0; k < ranges.length; k += 2) {
      if (sameBytes(body, ranges[k]!, ranges[k + 1]!, start, end)) {
        return decodeKey(body, start, end);
      }
    }
    ranges.push(start, end);
    return null;
  }
  if (frame.keySet === null) {
    frame.keySet = new Set();
    const ranges = frame.keyRanges;
    for (let k = 0; k < ranges.length; k += 2) {
      frame.keySet.add(decodeKey(body, ranges[k]!, ranges[k + 1]!));
    }
  }
  const key = decodeKey(body, start, end);
  if (frame.keySet.has(key)) return key;
  frame.keySet.add(key);
  return null;
}

function hasEscape(body: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (body[i] === BACKSLASH) return true;
  return false;
}

function sameBytes(body: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number) {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (body[aStart + i] !== body[bStart + i]) return false;
  return true;
}

/** A key's text, escapes decoded (so `"\u0072ole"` is `role`). */
function decodeKey(body: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(body.buffer, body.byteOffset + start, end - start).toString('utf8');
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
