/**
 * Saves that find the session's lock taken before trying it again without waiting: under
 * contention from other processes most tries fail, and each failed try costs a round trip.
 */
export const SAVES_BEFORE_RETRY = 8;

/** Contended sessions a {@link LockFreeGuesses} remembers at most; the oldest is forgotten first. */
export const REMEMBERED_CONTENDED_SESSIONS = 4096;

/**
 * Guesses, from the recent saves of each session through one DataSource, whether its advisory
 * lock is likely free, so that a save tries the cheap statement that takes it only when free (a
 * lone writer) and goes straight to the waiting procedure while other processes keep it busy.
 *
 * It outlives the store objects (the admin API and `MemoryService.runTurn` open a store per
 * call), and remembers only sessions recently found contended, in a map bounded by `capacity`
 * (least recently contended out first): a session it does not know is guessed free.
 */
export class LockFreeGuesses {
  /** Saves still to skip trying, by session key; only sessions with some left are kept. */
  private readonly savesToSkip = new Map<string, number>();

  constructor(private readonly capacity = REMEMBERED_CONTENDED_SESSIONS) {}

  /** Whether the next save of `session` should try the lock without waiting. */
  worthTrying(session: string): boolean {
    return !this.savesToSkip.has(session);
  }

  /** After a save of `session` that tried: `tookFreeLock` whether it found the lock free. */
  tried(session: string, tookFreeLock: boolean): void {
    this.savesToSkip.delete(session);
    if (tookFreeLock) return;
    this.savesToSkip.set(session, SAVES_BEFORE_RETRY);
    if (this.savesToSkip.size > this.capacity) {
      this.savesToSkip.delete(this.savesToSkip.keys().next().value!);
    }
  }

  /** After a save of `session` that went straight to waiting for the lock. */
  skipped(session: string): void {
    const left = (this.savesToSkip.get(session) ?? 1) - 1;
    if (left <= 0) this.savesToSkip.delete(session);
    else this.savesToSkip.set(session, left);
  }

  /** Sessions remembered as contended (for tests and metrics). */
  get size(): number {
    return this.savesToSkip.size;
  }
}

const byDataSource = new WeakMap<object, LockFreeGuesses>();

/**
 * The guesses of `dataSource`: one per DataSource (a backend owns one), shared by every store
 * opened on it, so what one save learned applies to the next open of the session.
 */
export function lockFreeGuessesOf(dataSource: object): LockFreeGuesses {
  let guesses = byDataSource.get(dataSource);
  if (!guesses) {
    guesses = new LockFreeGuesses();
    byDataSource.set(dataSource, guesses);
  }
  return guesses;
}
