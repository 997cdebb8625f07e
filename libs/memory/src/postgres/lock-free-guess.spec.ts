import { LockFreeGuesses, SAVES_BEFORE_RETRY, lockFreeGuessesOf } from './lock-free-guess';

describe('LockFreeGuesses', () => {
  it('tries the lock while it keeps finding it free, and remembers nothing of such sessions', () => {
    const guesses = new LockFreeGuesses();
    for (let i = 0; i < 3; i++) {
      expect(guesses.worthTrying('a')).toBe(true);
      guesses.tried('a', true);
    }
    expect(guesses.size).toBe(0);
  });

  it('after finding it taken, waits through the next saves of that session, then tries again', () => {
    const guesses = new LockFreeGuesses();
    guesses.tried('a', false);
    expect(guesses.worthTrying('b')).toBe(true);
    for (let i = 0; i < SAVES_BEFORE_RETRY; i++) {
      expect(guesses.worthTrying('a')).toBe(false);
      guesses.skipped('a');
    }
    expect(guesses.worthTrying('a')).toBe(true);
    expect(guesses.size).toBe(0);
  });

  it('keeps at most its capacity of contended sessions, forgetting the oldest first', () => {
    const guesses = new LockFreeGuesses(2);
    for (const session of ['a', 'b', 'c']) guesses.tried(session, false);
    expect(guesses.size).toBe(2);
    expect(guesses.worthTrying('a')).toBe(true);
    expect(guesses.worthTrying('b')).toBe(false);
    expect(guesses.worthTrying('c')).toBe(false);
  });

  it('is one per DataSource, so a fresh store of the session knows what an earlier one learned', () => {
    const dataSource = {};
    lockFreeGuessesOf(dataSource).tried('a', false);
    expect(lockFreeGuessesOf(dataSource).worthTrying('a')).toBe(false);
    expect(lockFreeGuessesOf({}).worthTrying('a')).toBe(true);
  });
});
