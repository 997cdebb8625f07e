import { assertSessionId, InvalidSessionIdError } from '@agent-memory/memory';

describe('session ids', () => {
  it.each(['a', 'A9', 'tenant.user.chat', 'x_y-z=1', 'a'.repeat(128)])('accepts %s', (id) => {
    expect(() => assertSessionId(id)).not.toThrow();
  });

  it.each([
    ['', /empty/],
    ['a'.repeat(129), /129 characters/],
    ['../etc', /dot-separated/],
    ['a/b', /dot-separated/],
    ['_x', /starting with a letter or digit/],
    ['a..b', /dot-separated/],
    ['trailing.', /dot-separated/],
    ['nul\u0000', /dot-separated/],
    ['sp ace', /dot-separated/],
    ['star*', /dot-separated/],
  ])('refuses %j, saying why', (id, reason) => {
    expect(() => assertSessionId(id)).toThrow(InvalidSessionIdError);
    expect(() => assertSessionId(id)).toThrow(reason);
  });
});
