/**
 * One suite for every `VectorStore`: each store's spec plugs in a factory making an empty store
 * of the given dimensions.
 */
import {
  DimensionMismatchError,
  type VectorRecord,
  type VectorStore,
} from '@agent-memory/memory/rag';

export interface VectorStoreFactory {
  create(dimensions: number): Promise<VectorStore>;
}

const rec = (
  id: string,
  vector: number[],
  fields: Partial<Omit<VectorRecord, 'id' | 'vector'>> = {},
): VectorRecord => ({ id, vector, session: 's1', resource: null, cursor: null, ...fields });

export function describeVectorStoreConformance(name: string, factory: VectorStoreFactory): void {
  describe(`VectorStore conformance: ${name}`, () => {
    let store: VectorStore;
    beforeEach(async () => {
      store = await factory.create(3);
    });
    afterEach(() => store.close());

    it('returns the nearest records by cosine, nearest first, with their payload', async () => {
      await store.upsert([
        rec('x', [1, 0, 0], { cursor: 1, payload: { text: 'east' } }),
        rec('y', [0, 1, 0], { cursor: 2, payload: { text: 'north' } }),
        rec('xy', [10, 9, 0], { cursor: 3, payload: { text: 'north-east' } }),
      ]);
      const hits = await store.query([1, 0.1, 0], 2);
      expect(hits.map((h) => h.id)).toEqual(['x', 'xy']);
      expect(hits[0]).toMatchObject({ session: 's1', cursor: 1, payload: { text: 'east' } });
      expect(hits[0]!.score).toBeCloseTo(1 / Math.sqrt(1.01), 5);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    });

    it('upsert replaces a record by id', async () => {
      await store.upsert([rec('a', [1, 0, 0], { payload: { v: 1 } })]);
      await store.upsert([rec('a', [0, 0, 1], { payload: { v: 2 } })]);
      const hits = await store.query([0, 0, 1], 5);
      expect(hits).toHaveLength(1);
      expect(hits[0]).toMatchObject({ id: 'a', payload: { v: 2 } });
      expect(hits[0]!.score).toBeCloseTo(1, 5);
    });

    it('filters on session and resource, and excludes a session from a cursor on', async () => {
      await store.upsert([
        rec('a1', [1, 0, 0], { session: 'a', resource: 'u1', cursor: 1 }),
        rec('a2', [1, 0, 0.1], { session: 'a', resource: 'u1', cursor: 2 }),
        rec('b1', [1, 0, 0.2], { session: 'b', resource: 'u1', cursor: 1 }),
        rec('c1', [1, 0, 0.3], { session: 'c', resource: 'u2', cursor: 1 }),
        rec('doc', [1, 0, 0.4], { session: null, resource: 'u1', cursor: null }),
      ]);
      const ids = async (filter: Parameters<VectorStore['query']>[2]) =>
        (await store.query([1, 0, 0], 10, filter)).map((h) => h.id).sort();
      expect(await ids({ session: 'a' })).toEqual(['a1', 'a2']);
      expect(await ids({ resource: 'u1' })).toEqual(['a1', 'a2', 'b1', 'doc']);
      expect(await ids({ resource: 'u1', exclude: { session: 'a', fromCursor: 2 } })).toEqual([
        'a1',
        'b1',
        'doc',
      ]);
      expect(await ids({})).toHaveLength(5);
    });

    it('delete removes what the filter matches, counts it, and refuses an empty filter', async () => {
      await store.upsert([
        rec('a1', [1, 0, 0], { session: 'a', cursor: 1 }),
        rec('a2', [0, 1, 0], { session: 'a', cursor: 2 }),
        rec('b1', [1, 0, 0], { session: 'b', cursor: 7 }),
      ]);
      await expect(store.delete({})).rejects.toThrow(RangeError);
      expect(await store.delete({ session: 'a' })).toBe(2);
      expect(await store.delete({ session: 'a' })).toBe(0);
      expect((await store.query([1, 0, 0], 10)).map((h) => h.id)).toEqual(['b1']);
      expect(await store.lastCursor('a')).toBeNull();
      expect(await store.lastCursor('b')).toBe(7);
    });

    it('a vector of the wrong length is refused before anything is written', async () => {
      const error = await store
        .upsert([rec('ok', [1, 0, 0]), rec('bad', [1, 0])])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DimensionMismatchError);
      expect(error).toMatchObject({ code: 'DIMENSION_MISMATCH', expected: 3, actual: 2 });
      expect(await store.query([1, 0, 0], 10)).toEqual([]);
      await expect(store.query([1, 0], 1)).rejects.toBeInstanceOf(DimensionMismatchError);
      await expect(store.upsert([rec('nan', [1, NaN, 0])])).rejects.toThrow(
        /records\[0\]\.vector\[1\]/,
      );
    });

    it('keeps large cursors exactly (Postgres cursors are bigint)', async () => {
      const cursor = 2 ** 40 + 3;
      await store.upsert([rec('big', [0, 1, 0], { cursor })]);
      expect((await store.query([0, 1, 0], 1))[0]!.cursor).toBe(cursor);
      expect(await store.lastCursor('s1')).toBe(cursor);
    });
  });
}
