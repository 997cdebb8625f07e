import { CorruptSessionError, IdempotencyKeyReusedError } from './errors';
import { batchDigest, IDEMPOTENCY_KEY_WINDOW } from './idempotency';
import { IDEMPOTENCY_KEY_MARK } from './idempotency-marks';
import { userMessage, type Message } from './message';
import {
  EMPTY_DOCUMENT,
  appendToDocument,
  decodeDocument,
  documentEntries,
  encodeDocument,
  isPlainLog,
  mayHaveLostKeyMarks,
  provesNotStored,
  saveToDocument,
  setDocumentMeta,
  type SessionDocument,
} from './session-document';

const one = [userMessage('m')];

function keyed(count: number): SessionDocument {
  let doc = EMPTY_DOCUMENT;
  for (let i = 0; i < count; i++) {
    doc = saveToDocument(doc, one, { idempotencyKey: `k${i}` }).doc!;
  }
  return doc;
}

describe('session documents and idempotency keys', () => {
  it('remembers a key with the cursors it stored and replays it without a change', () => {
    const first = saveToDocument(EMPTY_DOCUMENT, [userMessage('a'), userMessage('b')], {
      idempotencyKey: 'k',
    });
    expect(first.result).toEqual({ first: 1, last: 2, replayed: false });
    const again = saveToDocument(first.doc!, [userMessage('a'), userMessage('b')], {
      idempotencyKey: 'k',
    });
    expect(again).toEqual({ doc: null, result: { first: 1, last: 2, replayed: true } });
  });

  it('refuses the key with other messages, naming the session, and replays a record kept without a digest', () => {
    const first = saveToDocument(EMPTY_DOCUMENT, [userMessage('a')], { idempotencyKey: 'k' });
    expect(() =>
      saveToDocument(first.doc!, [userMessage('b')], { idempotencyKey: 'k', session: 's1' }),
    ).toThrow(new IdempotencyKeyReusedError('s1', 'k'));
    const older = decodeDocument('s1', {
      messages: [userMessage('a')],
      saved: 1,
      idempotencyKeys: [{ key: 'k', first: 1, last: 1 }],
    });
    expect(saveToDocument(older, [userMessage('b')], { idempotencyKey: 'k' }).result).toEqual({
      first: 1,
      last: 1,
      replayed: true,
    });
  });

  it('digests a batch by its content, not by the order of its object keys', () => {
    const call = (args: Record<string, unknown>) =>
      [
        {
          role: 'assistant',
          parts: [{ type: 'tool-call', toolCallId: 'c1', name: 'f', arguments: args }],
        },
      ] as unknown as Message[];
    expect(batchDigest(call({ a: 1, b: [2, { c: 3, d: 4 }] }))).toBe(
      batchDigest(call({ b: [2, { d: 4, c: 3 }], a: 1 })),
    );
    expect(batchDigest(call({ a: 1 }))).not.toBe(batchDigest(call({ a: 2 })));
    expect(batchDigest([userMessage('a')])).not.toBe(
      batchDigest([userMessage('a'), userMessage('a')]),
    );
  });

  it(`keeps the newest ${IDEMPOTENCY_KEY_WINDOW} keys`, () => {
    const doc = keyed(IDEMPOTENCY_KEY_WINDOW + 1);
    expect(doc.keys).toHaveLength(IDEMPOTENCY_KEY_WINDOW);
    expect(doc.keys![0]!.key).toBe('k1');
    expect(saveToDocument(doc, one, { idempotencyKey: 'k0' }).result.replayed).toBe(false);
    expect(saveToDocument(doc, one, { idempotencyKey: 'k1' }).result.replayed).toBe(true);
  });

  it("stays a plain array with keys remembered: each key marks its batch's first message", () => {
    const plain = saveToDocument(EMPTY_DOCUMENT, one).doc!;
    expect(isPlainLog(plain)).toBe(true);
    expect(Array.isArray(encodeDocument(plain))).toBe(true);
    const two = [userMessage('q'), userMessage('a')];
    const doc = saveToDocument(keyed(1), two, { idempotencyKey: 'k1' }).doc!;
    expect(isPlainLog(doc)).toBe(true);
    const encoded = JSON.parse(JSON.stringify(encodeDocument(doc)));
    expect(Array.isArray(encoded)).toBe(true);
    expect(encoded.map((m: Record<string, unknown>) => m[IDEMPOTENCY_KEY_MARK])).toEqual([
      { key: 'k0', count: 1, digest: batchDigest(one) },
      { key: 'k1', count: 2, digest: batchDigest(two) },
      undefined,
    ]);
    expect(decodeDocument('s', encoded)).toEqual(doc);
  });

  it('tells an array that lost its marks (rewritten by another program) from one written here', () => {
    const ours = saveToDocument(EMPTY_DOCUMENT, one, { savedAt: '2026-12-05T00:00:00.000Z' }).doc!;
    expect(mayHaveLostKeyMarks(ours)).toBe(false);
    expect(mayHaveLostKeyMarks(keyed(1))).toBe(false);
    expect(mayHaveLostKeyMarks(decodeDocument('s', [{ role: 'user', parts: [] }]))).toBe(true);
    expect(mayHaveLostKeyMarks(EMPTY_DOCUMENT)).toBe(false);
  });

  it('keeps the keys as a list in the object form (a session with metadata)', () => {
    const doc = setDocumentMeta(keyed(2), 'title', 't');
    const encoded = JSON.parse(JSON.stringify(encodeDocument(doc)));
    expect(encoded.idempotencyKeys).toEqual([
      { key: 'k0', first: 1, last: 1, digest: batchDigest(one) },
      { key: 'k1', first: 2, last: 2, digest: batchDigest(one) },
    ]);
    expect(encoded.messages.some((m: object) => IDEMPOTENCY_KEY_MARK in m)).toBe(false);
    expect(decodeDocument('s', encoded)).toEqual(doc);
  });

  it.each([
    ['not an object', 'k'],
    ['without a count', { key: 'k' }],
    ['without a key', { count: 1 }],
  ])('refuses a key mark that is %s as a corrupt session', (_, mark) => {
    const raw = [
      { role: 'user', parts: [{ type: 'text', text: 'q' }], [IDEMPOTENCY_KEY_MARK]: mark },
    ];
    expect(() => decodeDocument('s', raw)).toThrow(CorruptSessionError);
  });

  it('keeps the keys through metadata changes', () => {
    const doc = setDocumentMeta(keyed(1), 'title', 't');
    expect(saveToDocument(doc, one, { idempotencyKey: 'k0' }).result.replayed).toBe(true);
  });

  it.each([
    ['not an array', { messages: [], idempotencyKeys: 'k' }],
    ['a record without a key', { messages: [], idempotencyKeys: [{ first: 1, last: 1 }] }],
    [
      'a cursor that is not an integer',
      { messages: [], idempotencyKeys: [{ key: 'k', first: 'x' }] },
    ],
  ])('refuses stored keys that are %s as a corrupt session', (_, raw) => {
    expect(() => decodeDocument('s', raw)).toThrow(CorruptSessionError);
  });

  describe('whether a save whose write went unanswered was stored', () => {
    const turn = [userMessage('question'), userMessage('answer')];
    /** The document a save of `turn` was planned on, with `keys` keyed saves, and the plan. */
    function planned(keys: number) {
      const base = keyed(keys);
      const plan = saveToDocument(base, turn, { idempotencyKey: 'mine' });
      return { base, stored: plan.doc!, at: plan.result };
    }
    /** `doc` after `count` more keyed saves of `messages` by others. */
    const othersSave = (doc: SessionDocument, count: number, messages = one) => {
      for (let i = 0; i < count; i++)
        doc = saveToDocument(doc, messages, { idempotencyKey: `other${i}` }).doc!;
      return doc;
    };

    it('is proved while the remembered keys reach back to its cursors', () => {
      const { base, at } = planned(IDEMPOTENCY_KEY_WINDOW);
      // Others saved the same messages from that revision on (so the messages cannot tell); the
      // window still holds every key from that cursor on.
      const other = othersSave(base, IDEMPOTENCY_KEY_WINDOW - 1, turn);
      expect(provesNotStored(other, at, turn)).toBe(true);
    });

    it('is proved when fewer messages were saved than the save would have made', () => {
      const { base, at } = planned(IDEMPOTENCY_KEY_WINDOW);
      expect(provesNotStored(base, at, turn)).toBe(true);
    });

    it('is proved, after its key would have left the window, by different messages at its cursors', () => {
      const { base, at } = planned(IDEMPOTENCY_KEY_WINDOW);
      const other = othersSave(base, 2 * IDEMPOTENCY_KEY_WINDOW);
      expect(provesNotStored(other, at, turn)).toBe(true);
    });

    it('is not proved when its own messages are there and its key has left the window', () => {
      const { stored, at } = planned(IDEMPOTENCY_KEY_WINDOW);
      const later = othersSave(stored, IDEMPOTENCY_KEY_WINDOW);
      expect(findKey(later, 'mine')).toBe(false);
      expect(provesNotStored(later, at, turn)).toBe(false);
      // Read back from its stored form, as a store loads it: still the same messages.
      const readBack = decodeDocument('s', JSON.parse(JSON.stringify(encodeDocument(later))));
      expect(provesNotStored(readBack, at, turn)).toBe(false);
    });
  });
});

function findKey(doc: SessionDocument, key: string): boolean {
  return (doc.keys ?? []).some((record) => record.key === key);
}

describe('session documents and save times', () => {
  const T1 = '2026-12-01T08:00:00.000Z';
  const T2 = '2026-12-02T08:00:00.000Z';
  const text = (i: number) => userMessage(`m${i}`);

  it('keeps the times of the kept messages when a capacity evicts the oldest', () => {
    let doc = appendToDocument(EMPTY_DOCUMENT, [text(1), text(2)], 3, T1);
    doc = appendToDocument(doc, [text(3), text(4)], 3, T2);
    expect(documentEntries(doc).map((e) => [e.cursor, e.savedAt])).toEqual([
      [2, T1],
      [3, T2],
      [4, T2],
    ]);
  });

  it('marks the first message of each run in the stored array, null for a run of unknown times, and reads the marks back', () => {
    // One of unknown time (an older file), a batch of two, one of unknown time, another batch.
    const doc: SessionDocument = {
      messages: [text(1), text(2), text(3), text(4), text(5)],
      saved: 5,
      snapshot: null,
      meta: {},
      savedAt: [undefined, T1, T1, undefined, T2],
    };
    const stored = encodeDocument(doc) as Record<string, unknown>[];
    expect(stored.map((m) => m.savedAt)).toEqual([undefined, T1, undefined, null, T2]);
    expect(decodeDocument('s', JSON.parse(JSON.stringify(stored)))).toEqual(doc);
    // An array with no marks (Phero's, an earlier version's) has no times at all.
    expect(decodeDocument('s', doc.messages)).not.toHaveProperty('savedAt');
  });
});
