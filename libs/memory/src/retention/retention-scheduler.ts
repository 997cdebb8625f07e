import type { RetentionSweeper, RetentionSweepResult } from './retention-sweeper';

/** Options of {@link RetentionScheduler}. */
export interface RetentionSchedulerOptions {
  /** Time between the end of one sweep and the start of the next (ms). */
  intervalMs: number;
  /** The clock (epoch ms) `nextSweepAt` is told in. Default `Date.now`. */
  now?: () => number;
  /** Told about each sweep that ran (not one skipped because another replica held the lease). */
  onSwept?: (result: RetentionSweepResult) => void;
  /** Told about a sweep that failed; the next one is still scheduled. Default `console.warn`. */
  onError?: (error: unknown) => void;
}

/**
 * Runs a {@link RetentionSweeper} periodically, off any request path: one timer (unref'd, so it
 * never keeps a process alive), rescheduled after each sweep ends so sweeps never overlap in this
 * process. Every replica may run one: the sweeper's lease lets one of them work at a time.
 */
export class RetentionScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Aborts the sweep running when `stop` is called, so shutdown does not wait for a whole sweep. */
  private abort = new AbortController();
  private next: number | null = null;
  private stopped = true;
  private readonly now: () => number;

  /** @throws RangeError when `intervalMs` is not a positive whole number. */
  constructor(
    private readonly sweeper: RetentionSweeper,
    private readonly options: RetentionSchedulerOptions,
  ) {
    if (!Number.isSafeInteger(options.intervalMs) || options.intervalMs <= 0) {
      throw new RangeError(
        `retention sweep interval must be a positive whole number of milliseconds, got ${options.intervalMs}`,
      );
    }
    this.now = options.now ?? Date.now;
  }

  /** When the next sweep starts (epoch ms); null while stopped or during a sweep. */
  get nextSweepAt(): number | null {
    return this.next;
  }

  /** Schedules the first sweep one interval from now (a no-op when already started). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.schedule();
  }

  /** Cancels the next sweep, stops the one running (between two sessions) and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.next = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.next = this.now() + this.options.intervalMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.next = null;
      this.running = this.run().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    try {
      const result = await this.sweeper.sweep({ signal: this.abort.signal });
      if (result.ran) this.options.onSwept?.(result);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      (this.options.onError ?? ((e) => console.warn('retention sweep failed:', e)))(error);
    }
  }
}
