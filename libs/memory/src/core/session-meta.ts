import { InvalidMetaError } from './errors';
import { unstorableTextReason } from './storable-text';

/** Keys that would reach an object's prototype machinery instead of being stored as data. */
const RESERVED_META_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks one `setMeta(key, value)` before any write, the same on every store.
 * @throws InvalidMetaError for a key that is not a non-empty string, is `__proto__`,
 * `constructor` or `prototype`, or holds a NUL character or a lone surrogate; and for a value
 * that is not a string or holds either.
 */
export function assertMetaEntry(key: unknown, value: unknown): void {
  if (typeof key !== 'string' || key === '') {
    throw new InvalidMetaError(String(key), 'a metadata key must be a non-empty string');
  }
  if (RESERVED_META_KEYS.has(key)) {
    throw new InvalidMetaError(
      key,
      '"__proto__", "constructor" and "prototype" are reserved; choose another key',
    );
  }
  const keyProblem = unstorableTextReason(key);
  if (keyProblem) throw new InvalidMetaError(key, `the key ${keyProblem}`);
  if (typeof value !== 'string') {
    throw new InvalidMetaError(key, "the value must be a string ('' removes the key)");
  }
  const valueProblem = unstorableTextReason(value);
  if (valueProblem) throw new InvalidMetaError(key, `the value ${valueProblem}`);
}
