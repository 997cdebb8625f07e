import { AdminToken } from './admin-token';

describe('AdminToken', () => {
  it('accepts exactly the configured token', () => {
    const token = new AdminToken('a-configured-token-123');
    expect(token.generated).toBe(false);
    expect(token.matches('a-configured-token-123')).toBe(true);
    for (const wrong of [
      '',
      'a-configured-token-12',
      'a-configured-token-1234',
      'A-CONFIGURED-TOKEN-123',
    ]) {
      expect([wrong, token.matches(wrong)]).toEqual([wrong, false]);
    }
  });

  it('makes a fresh random URL-safe token when none is configured', () => {
    const first = new AdminToken(null);
    const second = new AdminToken(null);
    expect(first.generated).toBe(true);
    expect(first.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.value).not.toBe(second.value);
    expect(first.matches(first.value)).toBe(true);
    expect(first.matches(second.value)).toBe(false);
  });
});
