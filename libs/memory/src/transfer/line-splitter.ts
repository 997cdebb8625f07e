import { InvalidImportLineError } from '../core/errors';

/** One line of the input: its text (without the newline) and its number, from 1. */
export interface InputLine {
  text: string;
  number: number;
}

/** Where the text of a JSON Lines input comes from: any chunking, strings or bytes (UTF-8). */
export type LineSource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a stream of chunks into lines as they arrive, holding at most one unfinished line (and
 * the chunk being split): memory stays bounded by `maxLineBytes` whatever the input's size.
 * Splitting on the newline byte never cuts a UTF-8 character (no multi-byte sequence holds it).
 * A trailing `\r` is dropped; blank lines are skipped but counted.
 * @throws InvalidImportLineError when a line is longer than `maxLineBytes` bytes, before the rest
 * of it is read.
 */
export async function* splitLines(
  source: LineSource,
  maxLineBytes: number,
): AsyncGenerator<InputLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const tooLong = () =>
    new InvalidImportLineError(
      number + 1,
      '(line)',
      `longer than the limit of ${maxLineBytes} bytes`,
    );
  const finish = (last: Buffer): InputLine | null => {
    number += 1;
    let line = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, -1);
    if (line.length > maxLineBytes) throw tooLong();
    const text = line.toString('utf8');
    return text.trim() === '' ? null : { text, number };
  };
  for await (const chunk of source) {
    const bytes = asBuffer(chunk);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const line = finish(bytes.subarray(start, end));
      start = end + 1;
      if (line) yield line;
    }
    if (start < bytes.length) {
      const rest = bytes.subarray(start);
      // One byte of slack for a `\r` before the newline still to come.
      if (pendingBytes + rest.length > maxLineBytes + 1) throw tooLong();
      pending.push(rest);
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0) {
    const line = finish(Buffer.alloc(0));
    if (line) yield line;
  }
}

/** The chunk's bytes, without a copy when it already is bytes. */
function asBuffer(chunk: string | Uint8Array): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk)
    ? chunk
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
