/**
 * The longest stretch of CPU time the process spent between two turns of its event loop: what a
 * blocking call (or a garbage collection) costs. Unlike the event loop delay that
 * `monitorEventLoopDelay` measures (prom-client's `nodejs_eventloop_lag_*`), it does not grow
 * while the process waits for a CPU, on a busy node or in a throttled container: a high delay with
 * a low hold means the process is starved of CPU, a high hold that code blocks the loop.
 *
 * A timer notes the process's CPU time (`process.cpuUsage`, every thread) each time the loop
 * reaches it; the most spent between two notes is the hold. Each stretch includes up to one
 * interval of ordinary work, so the figure is an upper bound of the longest single block.
 */
export class EventLoopHold {
  private timer: NodeJS.Timeout | undefined;
  private lastCpuMs = 0;
  private mostMs = 0;

  /** @param intervalMs how often the timer notes the CPU time. */
  constructor(private readonly intervalMs = 10) {}

  start(): void {
    if (this.timer) return;
    this.lastCpuMs = processCpuMs();
    this.timer = setInterval(() => this.note(), this.intervalMs);
    // A metric never keeps the process alive.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The longest hold since the previous call (or the start), in ms; starts a new period. */
  takeMaxMs(): number {
    this.note();
    const most = this.mostMs;
    this.mostMs = 0;
    return most;
  }

  private note(): void {
    const now = processCpuMs();
    this.mostMs = Math.max(this.mostMs, now - this.lastCpuMs);
    this.lastCpuMs = now;
  }
}

/** The CPU time this process has spent so far (every thread, user and system), in ms. */
export function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
