import type { SessionInfo } from './backend.interface';
import { InvalidQueryError } from './errors';
import { decodeListToken, encodeListToken, listLimit, paginateSessions } from './session-list';

const info = (id: string, updatedAt: string, title?: string): SessionInfo => ({
  id,
  messages: 1,
  stored: 1,
  updatedAt,
  hasSnapshot: false,
  snapshotUpTo: null,
  meta: title ? { title } : {},
});

describe('session list paging', () => {
  const all = [
    info('b', '2026-01-01T00:00:02.000Z'),
    info('a', '2026-01-01T00:00:02.000Z', 'Budget review'),
    info('c', '2026-01-01T00:00:03.000Z'),
    info('d', '2026-01-01T00:00:01.000Z'),
  ];

  it('orders newest first, ties by id, and pages with a token until null', () => {
    const first = paginateSessions(all, { limit: 2 });
    expect(first.items.map((i) => i.id)).toEqual(['c', 'a']);
    const second = paginateSessions(all, { limit: 2, after: first.next! });
    expect(second.items.map((i) => i.id)).toEqual(['b', 'd']);
    expect(second.next).toBeNull();
  });

  it('searches ids and titles case-insensitively', () => {
    expect(paginateSessions(all, { search: 'BUDGET' }).items.map((i) => i.id)).toEqual(['a']);
    expect(paginateSessions(all, { search: 'C' }).items.map((i) => i.id)).toEqual(['c']);
  });

  it('clamps the limit to 500 and refuses nonsense', () => {
    expect(listLimit({})).toBe(50);
    expect(listLimit({ limit: 10_000 })).toBe(500);
    expect(() => listLimit({ limit: 0 })).toThrow(InvalidQueryError);
    expect(() => listLimit({ limit: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'INVALID_QUERY', field: 'limit' }),
    );
    expect(() => listLimit({ search: 'a\u0000b' })).toThrow(
      expect.objectContaining({ code: 'INVALID_QUERY', field: 'search' }),
    );
  });

  it('round-trips tokens and refuses foreign ones', () => {
    const position = { updatedAt: '2026-01-01T00:00:00.000Z', id: 'x.y' };
    expect(decodeListToken(encodeListToken(position))).toEqual(position);
    expect(() => decodeListToken('garbage')).toThrow(/not a page token/);
  });

  it.each([
    ['not base64 JSON', 'garbage'],
    ['a time that is not one', forge(['2026-13-45T99:00:00.000Z', 'x'])],
    ['another time format', forge(['2026-01-01 00:00:00', 'x'])],
    ['a time as a number', forge([1767225600000, 'x'])],
    ['an invalid session id', forge(['2026-01-01T00:00:00.000Z', 'a b'])],
    ['a NUL in the id', forge(['2026-01-01T00:00:00.000Z', 'a\u0000'])],
    ['a third field', forge(['2026-01-01T00:00:00.000Z', 'x', 1])],
    ['an object', forge({ updatedAt: '2026-01-01T00:00:00.000Z', id: 'x' })],
    ['a huge token', 'A'.repeat(10_000)],
  ])('refuses a forged token (%s) as INVALID_QUERY on "after"', (_, token) => {
    expect(() => decodeListToken(token)).toThrow(InvalidQueryError);
    expect(() => listLimit({ after: token })).toThrow(
      expect.objectContaining({ code: 'INVALID_QUERY', field: 'after' }),
    );
  });
});

function forge(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
