/**
 * Saves that find the session's lock taken before trying it again without waiting: under
 * contention from other processes most tries fail, and each failed try costs a round trip.
 */
export const SAVES_BEFORE_RETRY = 8;

/**
 * Guesses, from a session's recent saves in this process, whether its advisory lock is likely
 * free, so that a save tries the cheap statement that takes it only when free (a lone writer)
 * and goes straight to the waiting procedure while other processes keep it busy.
 */
export class LockFreeGuess {
  private savesToSkip = 0;

  /** Whether the next save should try the lock without waiting. */
  worthTrying(): boolean {
    return this.savesToSkip === 0;
  }

  /** After a save that tried: `tookFreeLock` whether it found the lock free. */
  tried(tookFreeLock: boolean): void {
    this.savesToSkip = tookFreeLock ? 0 : SAVES_BEFORE_RETRY;
  }

  /** After a save that went straight to waiting for the lock. */
  skipped(): void {
    this.savesToSkip = Math.max(0, this.savesToSkip - 1);
  }
}
