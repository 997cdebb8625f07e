import { LockFreeGuess, SAVES_BEFORE_RETRY } from './lock-free-guess';

describe('LockFreeGuess', () => {
  it('tries the lock while it keeps finding it free', () => {
    const guess = new LockFreeGuess();
    for (let i = 0; i < 3; i++) {
      expect(guess.worthTrying()).toBe(true);
      guess.tried(true);
    }
  });

  it('after finding it taken, waits through the next saves, then tries again', () => {
    const guess = new LockFreeGuess();
    guess.tried(false);
    for (let i = 0; i < SAVES_BEFORE_RETRY; i++) {
      expect(guess.worthTrying()).toBe(false);
      guess.skipped();
    }
    expect(guess.worthTrying()).toBe(true);
  });
});
