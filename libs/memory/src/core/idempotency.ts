import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from './errors';
import type { Cursor, SaveResult } from './memory.interface';
import type { Message } from './message';

/** How many keyed saves a session remembers, newest first: a key older than that may store again. */
export const IDEMPOTENCY_KEY_WINDOW = 100;

/** Longest idempotency key, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** 1–255 visible ASCII characters: fits an HTTP header, a JSON file, a KV value and a jsonb row. */
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/** A keyed save a session remembers: its key and the cursors the first save stored. */
export interface IdempotencyRecord {
  readonly key: string;
  readonly first: Cursor | null;
  readonly last: Cursor | null;
  /** {@link batchDigest} of the batch the first save stored; absent in records kept before digests. */
  readonly digest?: string;
}

/**
 * SHA-256 (base64url) of a validated batch in a canonical JSON form (object keys sorted), kept
 * with its idempotency key so a reuse of the key with other messages is told from a retry.
 */
export function batchDigest(messages: readonly Message[]): string {
  return createHash('sha256').update(canonicalJson(messages)).digest('base64url');
}

/** What a save of an empty batch, or a save that stored nothing new, resolves with. */
export const EMPTY_SAVE_RESULT: SaveResult = Object.freeze({
  first: null,
  last: null,
  replayed: false,
});

/**
 * Checks an `idempotencyKey` option before any I/O.
 * @throws InvalidIdempotencyKeyError unless it is 1–255 visible ASCII characters (`!` to `~`).
 */
export function assertIdempotencyKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') {
    throw new InvalidIdempotencyKeyError(String(key), 'must be a string');
  }
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new InvalidIdempotencyKeyError(
      key,
      `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long`,
    );
  }
  if (!KEY_PATTERN.test(key)) {
    throw new InvalidIdempotencyKeyError(
      key,
      'must hold only visible ASCII characters (no spaces or control characters), such as a UUID',
    );
  }
}

/** The record of `key` among a session's remembered keys, or undefined. */
export function findIdempotencyRecord(
  records: readonly IdempotencyRecord[] | undefined,
  key: string,
): IdempotencyRecord | undefined {
  return records?.find((record) => record.key === key);
}

/** What a repeated key resolves with: the first save's cursors, marked as replayed. */
export function replayedResult(record: IdempotencyRecord): SaveResult {
  return { first: record.first, last: record.last, replayed: true };
}

/**
 * What a save under a key the session has seen resolves with: the first save's result, replayed,
 * when its batch has the digest the key was first saved with (`digest` undefined: an empty batch,
 * which only looks the key up; a record without one predates digests and replays).
 * @throws IdempotencyKeyReusedError when the key came with other messages.
 */
export function replayOrRefuse(
  session: string,
  record: IdempotencyRecord,
  digest: string | undefined,
): SaveResult {
  if (digest !== undefined && record.digest !== undefined && record.digest !== digest) {
    throw new IdempotencyKeyReusedError(session, record.key);
  }
  return replayedResult(record);
}

/** Appends `record`, keeping the newest {@link IDEMPOTENCY_KEY_WINDOW} records (oldest first). */
export function rememberIdempotencyRecord(
  records: readonly IdempotencyRecord[] | undefined,
  record: IdempotencyRecord,
): IdempotencyRecord[] {
  const all = [...(records ?? []), record];
  return all.length > IDEMPOTENCY_KEY_WINDOW ? all.slice(all.length - IDEMPOTENCY_KEY_WINDOW) : all;
}

/**
 * Reads stored records (a JSON array of `{ key, first, last, digest? }`, keys matched case-insensitively).
 * @throws Error naming what does not decode; stores wrap it in `CorruptSessionError`.
 */
export function decodeIdempotencyRecords(raw: unknown): IdempotencyRecord[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new Error('"idempotencyKeys" is not an array');
  return raw.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new Error(`idempotencyKeys[${index}] is not an object`);
    }
    const fields = new Map(Object.entries(item).map(([k, v]) => [k.toLowerCase(), v]));
    const key = fields.get('key');
    const first = fields.get('first') ?? null;
    const last = fields.get('last') ?? null;
    const digest = fields.get('digest');
    if (typeof key !== 'string' || key === '') {
      throw new Error(`idempotencyKeys[${index}].key is not a non-empty string`);
    }
    if (
      (first !== null && !Number.isSafeInteger(first)) ||
      (last !== null && !Number.isSafeInteger(last))
    ) {
      throw new Error(`idempotencyKeys[${index}] has a cursor that is not an integer`);
    }
    if (digest !== undefined && typeof digest !== 'string') {
      throw new Error(`idempotencyKeys[${index}].digest is not a string`);
    }
    const record = { key, first: first as Cursor | null, last: last as Cursor | null };
    return digest === undefined ? record : { ...record, digest };
  });
}
