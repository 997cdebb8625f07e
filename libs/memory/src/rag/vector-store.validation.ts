import { DimensionMismatchError } from './rag.errors';
import type { VectorFilter, VectorRecord } from './vector-store.interface';
import { assertFiniteVector } from './vector-math';

/**
 * Checks a batch before any of it is written: lengths, finite numbers, ids.
 * @throws DimensionMismatchError, TypeError naming the record.
 */
export function assertRecords(
  store: string,
  dimensions: number,
  records: readonly VectorRecord[],
): void {
  records.forEach((record, i) => {
    if (typeof record.id !== 'string' || record.id === '') {
      throw new TypeError(`records[${i}].id must be a non-empty string`);
    }
    assertQueryVector(store, dimensions, record.vector, `records[${i}].vector`);
  });
}

/** @throws DimensionMismatchError when the length is wrong; TypeError when not finite numbers. */
export function assertQueryVector(
  store: string,
  dimensions: number,
  vector: readonly number[],
  what = 'query vector',
): void {
  if (!Array.isArray(vector)) throw new TypeError(`${what} must be an array of numbers`);
  if (vector.length !== dimensions) {
    throw new DimensionMismatchError(store, dimensions, vector.length);
  }
  assertFiniteVector(vector, what);
}

/** @throws RangeError when a delete filter would match the whole store. */
export function assertDeleteFilter(filter: VectorFilter): void {
  if (filter.session === undefined && filter.resource === undefined) {
    throw new RangeError(
      'delete needs a `session` or a `resource` filter (refusing to delete every vector)',
    );
  }
}

/** @throws RangeError when `k` is not a positive integer. */
export function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}
