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
    this.schedule();
  }

  /** Cancels the next sweep and waits for the one running, if any, to end. */
  async stop(): Promise<void> {
    this.stopped = true;
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
      const result = await this.sweeper.sweep();
      if (result.ran) this.options.onSwept?.(result);
    } catch (error) {
      (this.options.onError ?? ((e) => console.warn('retention sweep failed:', e)))(error);
    }
  }
}
