import { batchDigest, type IdempotencyRecord } from './idempotency';
import {
  decodeKeySidecar,
  encodeKeySidecar,
  markIdempotencyKeys,
  mergeSidecarKeys,
  readIdempotencyMarks,
} from './idempotency-marks';
import { userMessage } from './message';

const log = [userMessage('a'), userMessage('b'), userMessage('c'), userMessage('d')];
const record = (key: string, first: number, last: number): IdempotencyRecord => ({
  key,
  first,
  last,
  digest: batchDigest(log.slice(first - 1, last)),
});

describe('idempotency key marks and the key copy', () => {
  it('marks each record on its batch’s first message and reads the same records back', () => {
    const keys = [record('k1', 1, 2), record('k2', 4, 4)];
    const marked = markIdempotencyKeys(log, 1, keys);
    expect(marked[1]).toBe(log[1]);
    expect(readIdempotencyMarks(JSON.parse(JSON.stringify(marked)), 1)).toEqual(keys);
    expect(markIdempotencyKeys(log, 1, [])).toBe(log);
  });

  it('adds a copy’s record only where its messages are stored at its cursors', () => {
    const own = [record('k1', 1, 2)];
    const copy = [
      record('k1', 1, 2),
      record('stored', 3, 3),
      // A save whose write never landed: other messages (or none) at its cursors.
      { ...record('lost', 4, 4), digest: batchDigest([userMessage('not what is stored')]) },
      { key: 'past-the-end', first: 5, last: 6, digest: record('k1', 1, 2).digest },
      { key: 'no-digest', first: 4, last: 4 },
    ];
    expect(mergeSidecarKeys(own, copy, log, 1, 100).map((r) => r.key)).toEqual(['k1', 'stored']);
    expect(mergeSidecarKeys(own, [record('k1', 1, 2)], log, 1, 100)).toBe(own);
  });

  it('keeps the newest records of the window, in cursor order', () => {
    const merged = mergeSidecarKeys(
      [record('k4', 4, 4)],
      [record('k1', 1, 1), record('k3', 3, 3)],
      log,
      1,
      2,
    );
    expect(merged.map((r) => r.key)).toEqual(['k3', 'k4']);
  });

  it('reads an empty copy (a write a crash cut short) as none, and refuses one that is not records', () => {
    expect(decodeKeySidecar('')).toEqual([]);
    expect(decodeKeySidecar(encodeKeySidecar([record('k1', 1, 2)]))).toEqual([record('k1', 1, 2)]);
    expect(() => decodeKeySidecar('{"oops"')).toThrow(/not valid JSON/);
    expect(() => decodeKeySidecar('[{"first":1}]')).toThrow(/key/);
  });
});
