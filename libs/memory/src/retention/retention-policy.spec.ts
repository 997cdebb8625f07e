import { parseDuration } from './duration';
import { resolveRetentionPolicy } from './retention-policy';

describe('retention durations and policy', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2_000],
    ['15m', 900_000],
    ['12h', 43_200_000],
    ['30d', 2_592_000_000],
    ['1w', 604_800_000],
    [' 3s ', 3_000],
    [1500, 1500],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration('x', text)).toBe(ms);
  });

  it.each(['', '0s', '-1d', '1.5h', '30 days', '1y', 'd', '9999999999999999d', 0, -5, 1.5])(
    'refuses %j, naming the field',
    (bad) => {
      expect(() => parseDuration('retention.maxIdle', bad)).toThrow(/^retention\.maxIdle must be/);
    },
  );

  it('converts a policy and names the field that is wrong', () => {
    expect(resolveRetentionPolicy({ maxIdle: '30d', action: 'delete' })).toEqual({
      maxAgeMs: null,
      maxIdleMs: 2_592_000_000,
      action: 'delete',
    });
    expect(() => resolveRetentionPolicy({ maxAge: 'soon', action: 'delete' })).toThrow(
      /retention\.maxAge/,
    );
    expect(() => resolveRetentionPolicy({ maxAge: '1d', action: 'archive' as 'delete' })).toThrow(
      /retention\.action must be one of delete, keep-summary/,
    );
    expect(() => resolveRetentionPolicy({ action: 'delete' })).toThrow(/maxAge, maxIdle or both/);
  });
});
