import { InvalidMessageError } from './errors';
import { unstorableTextReason } from './storable-text';

/**
 * The most a message's or a part's `providerData` may take as compact JSON, in UTF-8 bytes
 * (256 KiB): room for an SDK's encrypted reasoning and provider options, small enough that one
 * message cannot fill a session on its own.
 */
export const MAX_PROVIDER_DATA_BYTES = 256 * 1024;

/** How deeply arrays and objects may nest inside one `providerData`, the object itself being depth 1. */
export const MAX_PROVIDER_DATA_DEPTH = 32;

/**
 * Reads a stored or submitted `providerData`: a JSON object, returned as a fresh copy so later
 * changes to `value` do not reach it. `null` and `undefined` stand for none.
 * @throws InvalidMessageError at `path` when it is not an object.
 */
export function readProviderData(
  value: unknown,
  path: string,
): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw new InvalidMessageError(path, 'must be a JSON object (provider fields kept as they are)');
  }
  return structuredClone(value);
}

/**
 * Checks that `data` is JSON every store keeps as it is: objects, arrays, strings, finite numbers,
 * booleans and null, nested at most {@link MAX_PROVIDER_DATA_DEPTH} deep, no string or key that
 * cannot be stored (see `unstorableTextReason`), at most {@link MAX_PROVIDER_DATA_BYTES} as JSON.
 * @throws InvalidMessageError naming the offending path (such as `message.providerData.item.id`).
 */
export function assertStorableProviderData(data: Record<string, unknown>, path: string): void {
  assertJsonValue(data, path, 1);
  const bytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
  if (bytes > MAX_PROVIDER_DATA_BYTES) {
    throw new InvalidMessageError(
      path,
      `is ${bytes} bytes as JSON, over the limit of ${MAX_PROVIDER_DATA_BYTES} bytes ` +
        '(MAX_PROVIDER_DATA_BYTES); keep large content in parts',
    );
  }
}

function assertJsonValue(value: unknown, path: string, depth: number): void {
  if (value === null || typeof value === 'boolean') return;
  if (typeof value === 'string') {
    const problem = unstorableTextReason(value);
    if (problem) throw new InvalidMessageError(path, problem);
    return;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InvalidMessageError(path, `is ${value}, which JSON cannot hold`);
    }
    return;
  }
  if (typeof value !== 'object') {
    throw new InvalidMessageError(path, `is a ${typeof value}, which JSON cannot hold`);
  }
  if (depth > MAX_PROVIDER_DATA_DEPTH) {
    throw new InvalidMessageError(
      path,
      `nests deeper than ${MAX_PROVIDER_DATA_DEPTH} levels (MAX_PROVIDER_DATA_DEPTH)`,
    );
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertJsonValue(item, `${path}[${index}]`, depth + 1));
    return;
  }
  if (!isPlainObject(value)) {
    throw new InvalidMessageError(path, 'is not a plain JSON object');
  }
  for (const [key, field] of Object.entries(value)) {
    // JSON leaves an undefined field out, as every store then does.
    if (field === undefined) continue;
    const problem = unstorableTextReason(key);
    if (problem) throw new InvalidMessageError(`${path}.${key}`, `its key ${problem}`);
    assertJsonValue(field, `${path}.${key}`, depth + 1);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // Any realm's Object.prototype (jest, vm contexts) has no prototype of its own; a class's has.
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}
