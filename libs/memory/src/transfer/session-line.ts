import { setImmediate } from 'node:timers/promises';
import { InvalidImportLineError, InvalidMessageError, MemoryError } from '../core/errors';
import { validateMessage, validateMessages } from '../core/message.codec';
import type { Entry, StoredSnapshot } from '../core/memory.interface';
import { jsonShapeProblem, type JsonShapeLimits } from '../core/json-shape';
import { batchSavedAt } from '../core/saved-at';
import { assertMetaEntry } from '../core/session-meta';
import { assertSessionId } from '../core/session-id';
import { unstorableTextReason } from '../core/storable-text';

/**
 * One session as a line of the JSON Lines transfer format (docs/storage-formats.md): its id,
 * metadata, latest snapshot and kept log, each entry with the cursor it had in the store it came
 * from and, where that store knew it, the ISO time its batch was saved.
 */
export interface SessionLine {
  id: string;
  meta: Record<string, string>;
  snapshot: StoredSnapshot | null;
  /** The kept log, oldest first: messages a snapshot covers (when the store kept them), then the tail. */
  entries: Entry[];
}

/**
 * The bounds an import line is checked against before it is parsed, by default: the nesting depth
 * of the admin API's JSON bodies (64 levels: a message with `providerData` at its deepest needs
 * about 40), and 4,000,000 objects and arrays (more than the longest line, 16 MiB, can hold of
 * messages), so nothing a store can export is refused. The admin API passes its own, smaller,
 * count bound.
 */
export const DEFAULT_IMPORT_LINE_SHAPE: Readonly<JsonShapeLimits> = Object.freeze({
  maxDepth: 64,
  maxContainers: 4_000_000,
});

/** A session as one line of JSON, ending with a newline. */
export function encodeSessionLine(session: SessionLine): string {
  const entries = session.entries.map(({ cursor, message, savedAt }) =>
    savedAt === undefined ? { cursor, message } : { cursor, message, savedAt },
  );
  const stored = session.snapshot;
  const snapshot = stored && {
    summary: stored.summary,
    ...(stored.pinned ? { pinned: stored.pinned } : {}),
    upTo: stored.upTo,
    createdAt: stored.createdAt,
  };
  return `${JSON.stringify({ id: session.id, meta: session.meta, snapshot, entries })}\n`;
}

/**
 * Reads one line of the transfer format, checking every field the stores will need: the id, each
 * metadata entry, the snapshot (summary, pinned messages, cursor) and each entry (a whole-number
 * cursor above the previous one, a valid message, an ISO `savedAt` or none). `meta` may be left
 * out (no metadata) and `snapshot` too (none); unknown fields are ignored. Before parsing, the
 * line's shape is checked against `shape` (depth, count of objects and arrays, no field named
 * twice), so a hostile line costs one pass over its bytes and never a deep parse. Metadata is
 * returned in an object without a prototype, so every key (`toString` too) is data.
 * @param lineNumber the line's number in the input, from 1, for the error.
 * @param shape the bounds; default {@link DEFAULT_IMPORT_LINE_SHAPE}.
 * @throws InvalidImportLineError naming the line and the field at fault.
 */
export function decodeSessionLine(
  text: string,
  lineNumber: number,
  shape: JsonShapeLimits = DEFAULT_IMPORT_LINE_SHAPE,
): SessionLine {
  const steps = decodeSteps(text, lineNumber, shape);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Entries {@link decodeSessionLineAsync} checks between two turns of the event loop. */
const ENTRIES_PER_TURN = 256;

/**
 * {@link decodeSessionLine}, giving the event loop a turn after every 256 entries, so a long
 * line (thousands of messages, each validated) never holds a server for long.
 */
export async function decodeSessionLineAsync(
  text: string,
  lineNumber: number,
  shape: JsonShapeLimits = DEFAULT_IMPORT_LINE_SHAPE,
): Promise<SessionLine> {
  const steps = decodeSteps(text, lineNumber, shape);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await setImmediate();
  }
}

/** The decoding, pausing (`yield`) every {@link ENTRIES_PER_TURN} entries. */
function* decodeSteps(
  text: string,
  lineNumber: number,
  shape: JsonShapeLimits,
): Generator<void, SessionLine> {
  const bad = (field: string, reason: string) =>
    new InvalidImportLineError(lineNumber, field, reason);
  const problem = jsonShapeProblem(Buffer.from(text, 'utf8'), shape);
  if (problem) {
    throw problem.field === 'body'
      ? bad('(line)', `the line ${problem.reason}`)
      : bad(problem.field, problem.reason);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw bad('(line)', `not JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw bad('(line)', 'must be a JSON object, one session a line');
  const id = value.id;
  if (typeof id !== 'string') throw bad('id', 'must be a string, the session id');
  rethrowAs(bad, 'id', () => assertSessionId(id));
  const meta = decodeMeta(value.meta, bad);
  const snapshot = decodeSnapshot(value.snapshot, bad);
  return { id, meta, snapshot, entries: yield* decodeEntries(value.entries, bad) };
}

type LineError = (field: string, reason: string) => InvalidImportLineError;

function decodeMeta(value: unknown, bad: LineError): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw bad('meta', 'must be an object of string values');
  // No prototype: a key such as `toString` or `valueOf` is kept as data, never inherited.
  const meta = Object.create(null) as Record<string, string>;
  for (const [key, entry] of Object.entries(value)) {
    rethrowAs(bad, `meta.${key}`, () => assertMetaEntry(key, entry));
    if (entry !== '') meta[key] = entry as string;
  }
  return meta;
}

function decodeSnapshot(value: unknown, bad: LineError): StoredSnapshot | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw bad('snapshot', 'must be an object or null');
  const { summary, pinned, upTo, createdAt } = value;
  if (typeof summary !== 'string') throw bad('snapshot.summary', 'must be a string');
  const summaryProblem = unstorableTextReason(summary);
  if (summaryProblem) throw bad('snapshot.summary', summaryProblem);
  if (!Number.isSafeInteger(upTo)) throw bad('snapshot.upTo', 'must be a whole number (a cursor)');
  if (createdAt !== undefined) {
    rethrowAs(bad, 'snapshot.createdAt', () => assertIsoTime(createdAt));
  }
  const snapshot: StoredSnapshot = {
    summary,
    upTo: upTo as number,
    createdAt: (createdAt as string | undefined) ?? new Date(0).toISOString(),
  };
  if (pinned !== undefined && pinned !== null) {
    if (!Array.isArray(pinned)) throw bad('snapshot.pinned', 'must be an array of messages');
    snapshot.pinned = rethrowAs(bad, 'snapshot.pinned', () =>
      validateMessages(pinned, 'snapshot.pinned'),
    );
  }
  return snapshot;
}

function* decodeEntries(value: unknown, bad: LineError): Generator<void, Entry[]> {
  if (!Array.isArray(value)) throw bad('entries', 'must be an array (empty for no messages)');
  const entries: Entry[] = [];
  let previous = -Infinity;
  for (let i = 0; i < value.length; i++) {
    if (i > 0 && i % ENTRIES_PER_TURN === 0) yield;
    const raw: unknown = value[i];
    const path = `entries[${i}]`;
    if (!isObject(raw)) throw bad(path, 'must be an object { cursor, message, savedAt? }');
    const { cursor, message, savedAt } = raw;
    if (!Number.isSafeInteger(cursor)) throw bad(`${path}.cursor`, 'must be a whole number');
    if ((cursor as number) <= previous) {
      throw bad(`${path}.cursor`, `must be above the previous entry's cursor (${previous})`);
    }
    previous = cursor as number;
    if (savedAt !== undefined) rethrowAs(bad, `${path}.savedAt`, () => assertIsoTime(savedAt));
    const entry: Entry = {
      cursor: cursor as number,
      message: rethrowAs(bad, `${path}.message`, () => validateMessage(message, `${path}.message`)),
    };
    if (savedAt !== undefined) entry.savedAt = savedAt as string;
    entries.push(entry);
  }
  return entries;
}

/** Runs `check`, turning the library's validation errors into a line error naming `field`. */
function rethrowAs<T>(bad: LineError, field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidMessageError) throw bad(error.path, error.reason);
    if (error instanceof MemoryError) throw bad(field, error.message);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The check `save` applies to `SaveOptions.savedAt`: an ISO 8601 date and time with a zone. */
function assertIsoTime(value: unknown): void {
  batchSavedAt({ savedAt: value as string }, () => new Date());
}
