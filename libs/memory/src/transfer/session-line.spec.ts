import { InvalidImportLineError, userMessage } from '../core';
import { decodeSessionLine, encodeSessionLine } from './session-line';

/** The error a line gives, for its fields. */
function errorOf(text: string, lineNumber = 7): InvalidImportLineError {
  try {
    decodeSessionLine(text, lineNumber);
  } catch (error) {
    if (error instanceof InvalidImportLineError) return error;
    throw error;
  }
  throw new Error('the line decoded');
}

const entry = (cursor: number, text = 'hi') => ({ cursor, message: userMessage(text) });

describe('decodeSessionLine', () => {
  it('reads what encodeSessionLine writes', () => {
    const session = {
      id: 'a.b',
      meta: { title: 'T' },
      snapshot: {
        summary: 's',
        pinned: [userMessage('task')],
        upTo: 1,
        createdAt: '2026-01-02T03:04:05.000Z',
      },
      entries: [{ ...entry(1), savedAt: '2026-01-02T03:04:00.000Z' }, entry(2)],
    };
    const line = encodeSessionLine(session);
    expect(line.endsWith('\n')).toBe(true);
    expect(decodeSessionLine(line, 1)).toEqual(session);
  });

  it('takes a line without meta or snapshot as a session without them', () => {
    expect(decodeSessionLine('{"id":"x","entries":[]}', 1)).toEqual({
      id: 'x',
      meta: {},
      snapshot: null,
      entries: [],
    });
  });

  it.each([
    ['not JSON', '{"id":', '(line)', /not JSON/],
    ['an array', '[]', '(line)', /JSON object/],
    ['no id', '{"entries":[]}', 'id', /must be a string/],
    ['a bad id', '{"id":"a/b","entries":[]}', 'id', /invalid session id/],
    ['no entries', '{"id":"x"}', 'entries', /must be an array/],
    ['a meta value not a string', '{"id":"x","meta":{"t":1},"entries":[]}', 'meta.t', /string/],
    [
      'a snapshot without summary',
      '{"id":"x","snapshot":{"upTo":1},"entries":[]}',
      'snapshot.summary',
      /string/,
    ],
    [
      'a snapshot cursor not a number',
      '{"id":"x","snapshot":{"summary":"s","upTo":"1"},"entries":[]}',
      'snapshot.upTo',
      /whole number/,
    ],
    [
      'an entry without cursor',
      `{"id":"x","entries":[{"message":${JSON.stringify(userMessage('a'))}}]}`,
      'entries[0].cursor',
      /whole number/,
    ],
    [
      'a bad savedAt',
      `{"id":"x","entries":[{"cursor":1,"savedAt":"yesterday","message":${JSON.stringify(userMessage('a'))}}]}`,
      'entries[0].savedAt',
      /ISO 8601/,
    ],
    [
      'a bad role',
      '{"id":"x","entries":[{"cursor":1,"message":{"role":"robot","parts":[]}}]}',
      'entries[0].message.role',
      /./,
    ],
    [
      'a pinned message that is not one',
      '{"id":"x","snapshot":{"summary":"s","upTo":1,"pinned":[{"parts":[]}]},"entries":[]}',
      'snapshot.pinned[0].role',
      /./,
    ],
  ])('names the line and field of %s', (_what, text, field, reason) => {
    const error = errorOf(text);
    expect(error).toMatchObject({ code: 'INVALID_IMPORT_LINE', line: 7, field });
    expect(error.message).toContain(`import line 7, field ${field}`);
    expect(error.reason).toMatch(reason);
  });

  it('refuses cursors that do not increase, naming the entry', () => {
    const text = JSON.stringify({ id: 'x', entries: [entry(2), entry(2)] });
    expect(errorOf(text)).toMatchObject({ field: 'entries[1].cursor' });
  });
});
