/** Refused requests of one actor recorded one by one per window, by default. */
export const DEFAULT_REFUSED_ENTRIES_PER_ACTOR = 20;

/** The window of {@link DEFAULT_REFUSED_ENTRIES_PER_ACTOR}: an hour (ms). */
export const DEFAULT_REFUSED_WINDOW_MS = 3_600_000;

/**
 * How many requests refused by role (403) each actor may have recorded one by one per window, so
 * that a low role's token cannot push the changes that happened out of the bounded audit log by
 * being refused over and over. Past the budget a refused request is counted instead; the actor's
 * next recorded refusal says how many were not recorded before it.
 */
export class RefusedEntryBudget {
  private readonly actors = new Map<
    string,
    { windowEndsAt: number; recorded: number; skipped: number }
  >();

  /**
   * @param perActor entries per actor per window (at least 1).
   * @param windowMs the window's length (ms).
   * @param now the clock (epoch ms).
   */
  constructor(
    private readonly perActor = DEFAULT_REFUSED_ENTRIES_PER_ACTOR,
    private readonly windowMs = DEFAULT_REFUSED_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether the refusal of `actor` now is recorded: `{ record: true, skippedBefore }` with the
   * refusals not recorded since its last recorded one, or `{ record: false }` (now counted).
   */
  take(actor: string): { record: true; skippedBefore: number } | { record: false } {
    const now = this.now();
    let state = this.actors.get(actor);
    if (!state || now >= state.windowEndsAt) {
      state = { windowEndsAt: now + this.windowMs, recorded: 0, skipped: state?.skipped ?? 0 };
      this.actors.set(actor, state);
    }
    if (state.recorded >= this.perActor) {
      state.skipped++;
      return { record: false };
    }
    state.recorded++;
    const skippedBefore = state.skipped;
    state.skipped = 0;
    return { record: true, skippedBefore };
  }
}
