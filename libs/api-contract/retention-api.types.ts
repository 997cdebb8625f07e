/** Browser-safe types of the retention routes (shared by the API and the dashboard). */

/** What retention does to an expired session. */
export type RetentionActionView = 'delete' | 'keep-summary';

/** `GET /api/retention`: the configured policy and when the next periodic sweep starts. */
export interface RetentionView {
  /** Null when the server runs without retention (no `MEMORY_RETENTION_MAX_*`). */
  policy: {
    /** As configured, such as `30d`; null when not set. */
    maxAge: string | null;
    maxIdle: string | null;
    maxAgeMs: number | null;
    maxIdleMs: number | null;
    action: RetentionActionView;
  } | null;
  /** Time between periodic sweeps (ms); null without retention. */
  sweepIntervalMs: number | null;
  /** ISO time this replica starts its next sweep; null without retention or while one runs. */
  nextSweepAt: string | null;
}

/** `POST /api/retention/sweep`: the sessions expired (on a dry run, that would be). */
export interface RetentionSweepView {
  expired: string[];
  action: RetentionActionView;
  dryRun: boolean;
}
