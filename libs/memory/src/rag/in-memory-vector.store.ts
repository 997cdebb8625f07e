import type { Cursor } from '../core/memory.interface';
import type { VectorFilter, VectorHit, VectorRecord, VectorStore } from './vector-store.interface';
import { normalizeInPlace } from './vector-math';
import {
  assertDeleteFilter,
  assertK,
  assertQueryVector,
  assertRecords,
} from './vector-store.validation';

interface Slot {
  record: Omit<VectorRecord, 'vector'>;
  /** The row of the vector in `matrix`. */
  row: number;
}

/**
 * Vectors in this process's memory, searched exactly (cosine, a full scan): the reference for
 * recall measurements and fine for tens of thousands of vectors (a query over 100k vectors of 512
 * dimensions takes tens of milliseconds). Nothing survives a restart.
 */
export class InMemoryVectorStore implements VectorStore {
  private matrix: Float32Array;
  private slots: Slot[] = [];
  private readonly byId = new Map<string, Slot>();
  /** The slots of each session, so a session filter scans that session only. */
  private bySession = new Map<string | null, Set<Slot>>();

  /** @throws RangeError when `dimensions` is not a positive integer. */
  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(
        `InMemoryVectorStore: dimensions must be a positive integer, got ${dimensions}`,
      );
    }
    this.matrix = new Float32Array(dimensions * 64);
  }

  /** How many vectors the store holds. */
  get size(): number {
    return this.slots.length;
  }

  async upsert(records: readonly VectorRecord[]): Promise<void> {
    assertRecords('InMemoryVectorStore', this.dimensions, records);
    for (const { vector, ...record } of records) {
      let slot = this.byId.get(record.id);
      if (!slot) {
        slot = { record, row: this.slots.length };
        this.slots.push(slot);
        this.byId.set(record.id, slot);
        this.grow(this.slots.length);
      } else {
        this.bySession.get(slot.record.session)?.delete(slot);
      }
      let sessionSlots = this.bySession.get(record.session);
      if (!sessionSlots) this.bySession.set(record.session, (sessionSlots = new Set()));
      sessionSlots.add(slot);
      slot.record = { ...record, payload: structuredClone(record.payload ?? {}) };
      const row = this.matrix.subarray(
        slot.row * this.dimensions,
        (slot.row + 1) * this.dimensions,
      );
      row.set(vector);
      normalizeInPlace(row);
    }
  }

  async query(
    vector: readonly number[],
    k: number,
    filter: VectorFilter = {},
  ): Promise<VectorHit[]> {
    assertQueryVector('InMemoryVectorStore', this.dimensions, vector);
    assertK(k);
    const q = normalizeInPlace(Float32Array.from(vector));
    const dims = this.dimensions;
    const matrix = this.matrix;
    const slots =
      filter.session !== undefined ? [...(this.bySession.get(filter.session) ?? [])] : this.slots;
    const filtered =
      filter.session !== undefined || filter.resource !== undefined || !!filter.exclude;
    // The best k so far, worst first, kept sorted (k is small).
    const best: { slot: Slot; score: number }[] = [];
    let worst = -Infinity;
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s]!;
      if (filtered && !matches(slot.record, filter)) continue;
      let dot = 0;
      const base = slot.row * dims;
      for (let i = 0; i < dims; i++) dot += q[i]! * matrix[base + i]!;
      if (best.length === k && dot <= worst) continue;
      let at = 0;
      while (at < best.length && best[at]!.score < dot) at++;
      best.splice(at, 0, { slot, score: dot });
      if (best.length > k) best.shift();
      worst = best[0]!.score;
    }
    return best.reverse().map(({ slot, score }) => ({
      id: slot.record.id,
      score,
      session: slot.record.session,
      resource: slot.record.resource,
      cursor: slot.record.cursor,
      payload: structuredClone(slot.record.payload ?? {}),
    }));
  }

  async delete(filter: VectorFilter): Promise<number> {
    assertDeleteFilter(filter);
    const kept = this.slots.filter((slot) => !matches(slot.record, filter));
    const removed = this.slots.length - kept.length;
    if (removed === 0) return 0;
    const matrix = new Float32Array(Math.max(kept.length, 64) * this.dimensions);
    kept.forEach((slot, row) => {
      matrix.set(
        this.matrix.subarray(slot.row * this.dimensions, (slot.row + 1) * this.dimensions),
        row * this.dimensions,
      );
      slot.row = row;
    });
    this.matrix = matrix;
    this.slots = kept;
    this.byId.clear();
    this.bySession = new Map();
    for (const slot of kept) {
      this.byId.set(slot.record.id, slot);
      let sessionSlots = this.bySession.get(slot.record.session);
      if (!sessionSlots) this.bySession.set(slot.record.session, (sessionSlots = new Set()));
      sessionSlots.add(slot);
    }
    return removed;
  }

  lastCursor(session: string): Promise<Cursor | null> {
    let last: Cursor | null = null;
    for (const { record } of this.slots) {
      if (
        record.session === session &&
        record.cursor !== null &&
        (last === null || record.cursor > last)
      ) {
        last = record.cursor;
      }
    }
    return Promise.resolve(last);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private grow(rows: number): void {
    if (rows * this.dimensions <= this.matrix.length) return;
    const bigger = new Float32Array(this.matrix.length * 2);
    bigger.set(this.matrix);
    this.matrix = bigger;
  }
}

function matches(record: Omit<VectorRecord, 'vector'>, filter: VectorFilter): boolean {
  if (filter.session !== undefined && record.session !== filter.session) return false;
  if (filter.resource !== undefined && record.resource !== filter.resource) return false;
  const ex = filter.exclude;
  if (
    ex &&
    record.session === ex.session &&
    record.cursor !== null &&
    record.cursor >= ex.fromCursor
  ) {
    return false;
  }
  return true;
}
