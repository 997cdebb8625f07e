/** Deepest nesting of objects and arrays a JSON body may have (a message needs about 6). */
export const MAX_JSON_DEPTH = 64;
/**
 * Most objects and arrays one JSON body may hold: room for the largest append (500 messages,
 * 10,000 parts, 2,000 tool calls) with margin, while any body under it parses in a few tens of ms.
 */
export const MAX_JSON_CONTAINERS = 50_000;

/** Why a JSON body is refused before it is parsed: the limit it passed or a field it names twice. */
export class JsonBodyShapeError extends Error {
  /** Read by the body parser's error handling: a client error, shown to the client. */
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.shape.refused';
  readonly code = 'INVALID_BODY';

  constructor(
    /** The field at fault, or `body`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
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
 * Checks a JSON body's shape in one pass over its bytes, before `JSON.parse` spends time on it:
 * at most {@link MAX_JSON_DEPTH} levels and {@link MAX_JSON_CONTAINERS} objects and arrays, and
 * no object naming one field twice (`JSON.parse` would silently keep the last). It stops at the
 * first problem, so a body that is too deep or too large costs no more than the bytes up to it.
 * It follows only strings and brackets: malformed JSON is left for `JSON.parse` to refuse.
 * @param body UTF-8 bytes of the body.
 * @throws JsonBodyShapeError naming the limit or the repeated field.
 */
export function assertJsonBodyShape(body: Uint8Array): void {
  const frames: Frame[] = [];
  let depth = 0;
  let containers = 0;
  const length = body.length;
  for (let i = 0; i < length; i++) {
    const byte = body[i];
    if (byte === QUOTE) {
      const end = stringEnd(body, i + 1);
      const frame = depth > 0 ? frames[depth - 1]! : undefined;
      if (frame?.isObject && frame.expectKey) {
        frame.expectKey = false;
        noteKey(body, frame, i + 1, end);
      }
      i = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new JsonBodyShapeError(
          'body',
          `the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
        );
      }
      if (++containers > MAX_JSON_CONTAINERS) {
        throw new JsonBodyShapeError(
          'body',
          `the body holds more than ${MAX_JSON_CONTAINERS} objects and arrays`,
        );
      }
      openFrame(frames, depth, byte === OPEN_OBJECT);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (byte === COMMA && depth > 0) {
      const frame = frames[depth - 1]!;
      if (frame.isObject) frame.expectKey = true;
    }
  }
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

function noteKey(body: Uint8Array, frame: Frame, start: number, end: number): void {
  if (
    frame.keySet === null &&
    frame.keyRanges.length < PAIRWISE_KEYS * 2 &&
    !hasEscape(body, start, end)
  ) {
    const ranges = frame.keyRanges;
    for (let k = 0; k < ranges.length; k += 2) {
      if (sameBytes(body, ranges[k]!, ranges[k + 1]!, start, end)) {
        throw repeatedField(decodeKey(body, start, end));
      }
    }
    ranges.push(start, end);
    return;
  }
  if (frame.keySet === null) {
    frame.keySet = new Set();
    const ranges = frame.keyRanges;
    for (let k = 0; k < ranges.length; k += 2) {
      frame.keySet.add(decodeKey(body, ranges[k]!, ranges[k + 1]!));
    }
  }
  const key = decodeKey(body, start, end);
  if (frame.keySet.has(key)) throw repeatedField(key);
  frame.keySet.add(key);
}

function repeatedField(key: string): JsonBodyShapeError {
  const shown = JSON.stringify(key.slice(0, 64));
  return new JsonBodyShapeError(
    key.slice(0, 64),
    `the field ${shown} is given twice in one object; give each field once`,
  );
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

/**
 * The JSON body parser's `verify` hook: {@link assertJsonBodyShape} on the raw body, so a refused
 * body is never parsed. Bodies in another UTF charset are checked as UTF-8 after decoding.
 */
export function verifyJsonBodyShape(
  _req: unknown,
  _res: unknown,
  body: Buffer,
  encoding: string | null,
): void {
  const utf8 = !encoding || /^utf-?8$/i.test(encoding);
  assertJsonBodyShape(utf8 ? body : Buffer.from(body.toString(encoding as BufferEncoding), 'utf8'));
}
