/** Sessions whose token totals are remembered; the least recently checked is forgotten first. */
export const TALLY_SESSIONS = 4_096;

/**
 * Checks that may be answered from the tally in a row before one reads and counts the session
 * again: bounds what the tally can miss (messages another process or a plain `save` added, which
 * no check here was told about).
 */
export const TALLY_CHECKS_BETWEEN_COUNTS = 16;

interface Tally {
  /** Tokens of the session's context: counted, plus what was added since (an upper bound). */
  tokens: number;
  /** Checks answered from the tally since the last full count. */
  answered: number;
}

/**
 * The last counted token total of recent sessions, so that a threshold check after a turn can add
 * the turn's own messages to it instead of reading and counting the whole session again. What it
 * answers is an upper bound for this process's own writes (the count of new messages includes the
 * reply overhead once per turn; a snapshot or a clear elsewhere only lowers the true total), and
 * a full count at least every {@link TALLY_CHECKS_BETWEEN_COUNTS} checks picks up the rest.
 */
export class SessionTokenTally {
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly maxSessions = TALLY_SESSIONS,
    private readonly checksBetweenCounts = TALLY_CHECKS_BETWEEN_COUNTS,
  ) {}

  /**
   * The session's total with `addedTokens` more when it may stand in for a full count (it is
   * remembered, and not too many checks were answered from it since its count), else null.
   */
  estimate(sessionId: string, addedTokens: number): number | null {
    const tally = this.tallies.get(sessionId);
    if (!tally || tally.answered >= this.checksBetweenCounts) return null;
    return tally.tokens + addedTokens;
  }

  /** Remembers a check answered from the estimate: the added tokens now belong to the total. */
  answered(sessionId: string, tokens: number): void {
    const answered = (this.tallies.get(sessionId)?.answered ?? 0) + 1;
    this.put(sessionId, { tokens, answered });
  }

  /** Remembers a full count of the session's context. */
  counted(sessionId: string, tokens: number): void {
    this.put(sessionId, { tokens, answered: 0 });
  }

  /** Forgets the session (its count failed: the next check counts it again). */
  forget(sessionId: string): void {
    this.tallies.delete(sessionId);
  }

  private put(sessionId: string, tally: Tally): void {
    // Re-inserted so that the map's order is least recently checked first.
    this.tallies.delete(sessionId);
    this.tallies.set(sessionId, tally);
    if (this.tallies.size > this.maxSessions) {
      this.tallies.delete(this.tallies.keys().next().value!);
    }
  }
}
