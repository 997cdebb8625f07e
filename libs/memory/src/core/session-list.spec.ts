import type { SessionInfo } from './backend.interface';
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
    expect(() => listLimit({ limit: 0 })).toThrow(RangeError);
    expect(() => listLimit({ limit: Number.NaN })).toThrow(RangeError);
  });

  it('round-trips tokens and refuses foreign ones', () => {
    const position = { updatedAt: '2026-01-01T00:00:00.000Z', id: 'x.y' };
    expect(decodeListToken(encodeListToken(position))).toEqual(position);
    expect(() => decodeListToken('garbage')).toThrow(/not a page token/);
  });
});
