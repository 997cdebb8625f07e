import { userMessage } from './message';
import { stillCovers } from './snapshot-write';

const entry = (cursor: number, text: string) => ({ cursor, message: userMessage(text) });

describe('stillCovers', () => {
  const planned = [entry(1, 'a'), entry(2, 'b')];

  it('holds while the entries up to `upTo` are the planned ones, whatever follows', () => {
    expect(stillCovers([entry(1, 'a'), entry(2, 'b'), entry(3, 'later')], planned, 2)).toBe(true);
  });

  it('fails when the same cursors now hold other messages (the session was cleared and refilled)', () => {
    expect(stillCovers([entry(1, 'a'), entry(2, 'other')], planned, 2)).toBe(false);
  });

  it('fails when a planned entry is gone (evicted or pruned) or another one came first', () => {
    expect(stillCovers([entry(2, 'b'), entry(3, 'c')], planned, 2)).toBe(false);
    expect(stillCovers([entry(0, 'x'), ...planned], planned, 2)).toBe(false);
  });
});
