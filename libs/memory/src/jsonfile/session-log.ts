import type { FileHandle } from 'node:fs/promises';
import type { Cursor } from '../core/memory.interface';
import type { Message } from '../core/message';
import { decodeMessages } from '../core/message.codec';

/**
 * One line of a session's log file: one saved batch, in JSON Lines. `at` is the cursor of the
 * batch's first message, `m` its messages, `k` the idempotency key it was saved with (if any),
 * `d` the digest of the batch kept with that key, `t` the ISO time the batch was saved (absent
 * when unknown, and in lines of earlier versions) and `n` the count of messages. `at` and `n` end
 * the line, so the count a session holds is read from the log's last bytes, without parsing its
 * last batch (lines written before hold `at` first and no `n`; both decode).
 * A line is committed once it ends with a newline; a last line without one was torn by a crash
 * during its write (that save was never acknowledged) and is ignored, then cut off by the next
 * writer.
 */
export interface LogBatch {
  /** Byte offset of the line in the log file. */
  offset: number;
  at: Cursor;
  messages: readonly Message[];
  key?: string;
  digest?: string;
  /** When the batch was saved (ISO time); absent when unknown. */
  savedAt?: string;
}

/** How many bytes a log read takes at a time: bounds memory and the time between event-loop turns. */
const READ_CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** The JSON line of one batch, newline included. */
export function encodeLogLine(
  at: Cursor,
  messages: readonly Message[],
  key?: string,
  digest?: string,
  savedAt?: string,
): string {
  const line: {
    m: readonly Message[];
    k?: string;
    d?: string;
    t?: string;
    at?: Cursor;
    n?: number;
  } = { m: messages };
  if (key !== undefined) line.k = key;
  if (key !== undefined && digest !== undefined) line.d = digest;
  if (savedAt !== undefined) line.t = savedAt;
  line.at = at;
  line.n = messages.length;
  return `${JSON.stringify(line)}\n`;
}

/** The end of a line {@link encodeLogLine} wrote: `"at":<cursor>,"n":<count>}` and the newline. */
const LINE_END = /"at":(\d{1,16}),"n":(\d{1,16})\}\n$/;
/** Bytes read from a log's end to find its last line's cursor and count. */
const LINE_END_BYTES = 64;

/**
 * The cursor range of the last line of an open log of `size` bytes, from its last bytes only, when
 * that line is committed and was written with its count at the end.
 * @returns null when it cannot tell so (an older line, a torn last line, an empty log).
 */
export async function readLastLineRange(
  handle: FileHandle,
  size: number,
): Promise<{ at: Cursor; count: number } | null> {
  const length = Math.min(size, LINE_END_BYTES);
  if (length === 0) return null;
  const data = Buffer.allocUnsafe(length);
  const { bytesRead } = await handle.read(data, 0, length, size - length);
  const match = LINE_END.exec(data.toString('latin1', 0, bytesRead));
  if (!match) return null;
  return { at: Number(match[1]), count: Number(match[2]) };
}

/** Decodes one committed line. @throws Error saying what is wrong (the caller names the session). */
export function decodeLogLine(text: string, offset: number): LogBatch {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`log line at byte ${offset} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`log line at byte ${offset} is not an object`);
  }
  const { at, m, k, d, t, n } = raw as {
    at?: unknown;
    m?: unknown;
    k?: unknown;
    d?: unknown;
    t?: unknown;
    n?: unknown;
  };
  if (!Number.isSafeInteger(at) || (at as number) < 1) {
    throw new Error(`log line at byte ${offset} has no cursor "at"`);
  }
  if (!Array.isArray(m)) throw new Error(`log line at byte ${offset} has no message list "m"`);
  if (n !== undefined && n !== m.length) {
    throw new Error(
      `log line at byte ${offset} counts ${String(n)} messages but holds ${m.length}`,
    );
  }
  if (k !== undefined && typeof k !== 'string') {
    throw new Error(`log line at byte ${offset} has a key "k" that is not a string`);
  }
  if (d !== undefined && typeof d !== 'string') {
    throw new Error(`log line at byte ${offset} has a digest "d" that is not a string`);
  }
  const batch: LogBatch = { offset, at: at as number, messages: decodeMessages(m) };
  if (k !== undefined) batch.key = k;
  if (k !== undefined && d !== undefined) batch.digest = d;
  // A time that is not text is not worth refusing the session over: it reads as unknown.
  if (typeof t === 'string') batch.savedAt = t;
  return batch;
}

export interface LogRead {
  /** Where the committed lines read end (a torn last line starts here). */
  end: number;
}

/**
 * Reads the committed lines of an open log from byte `from` to `size`, a chunk at a time,
 * handing each decoded batch to `onBatch`; returning false from it stops the read early.
 * @throws Error when a committed line does not decode.
 */
export async function readLogLines(
  handle: FileHandle,
  from: number,
  size: number,
  onBatch: (batch: LogBatch) => boolean | void,
): Promise<LogRead> {
  let position = from;
  let pending: Buffer | null = null;
  let pendingOffset = from;
  while (position < size) {
    const length = Math.min(READ_CHUNK_BYTES, size - position);
    const chunk = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(chunk, 0, length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data: Buffer = pending
      ? Buffer.concat([pending, chunk.subarray(0, bytesRead)])
      : chunk.subarray(0, bytesRead);
    let start = 0;
    for (
      let newline = data.indexOf(NEWLINE);
      newline !== -1;
      newline = data.indexOf(NEWLINE, start)
    ) {
      const offset = pendingOffset + start;
      if (newline > start) {
        const batch = decodeLogLine(data.toString('utf8', start, newline), offset);
        if (onBatch(batch) === false) return { end: pendingOffset + newline + 1 };
      }
      start = newline + 1;
    }
    pendingOffset += start;
    pending = start < data.length ? Buffer.from(data.subarray(start)) : null;
  }
  return { end: pendingOffset };
}

/**
 * The last committed line of an open log of `size` bytes, read backwards from its end (so it costs
 * the last batch, not the log), or null when the log has no committed line.
 * @throws Error when that line does not decode.
 */
export async function readLastLogLine(handle: FileHandle, size: number): Promise<LogBatch | null> {
  let window = Math.min(size, 64 * 1024);
  for (;;) {
    const start = size - window;
    const data = Buffer.allocUnsafe(window);
    const { bytesRead } = await handle.read(data, 0, window, start);
    const text = data.subarray(0, bytesRead);
    const lastNewline = text.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      if (start === 0) return null;
    } else {
      const before = lastNewline === 0 ? -1 : text.lastIndexOf(NEWLINE, lastNewline - 1);
      if (before !== -1 || start === 0) {
        const lineStart = before + 1;
        return decodeLogLine(text.toString('utf8', lineStart, lastNewline), start + lineStart);
      }
    }
    window = Math.min(size, window * 4);
  }
}
