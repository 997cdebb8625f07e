import { setTimeout as sleep } from 'node:timers/promises';
import { EventLoopHold, processCpuMs } from './event-loop-hold';

/** Holds the event loop until the process has spent `ms` of CPU time. */
function blockFor(ms: number): void {
  const until = processCpuMs() + ms;
  while (processCpuMs() < until);
}

describe('EventLoopHold', () => {
  it('reports a block of the loop by the CPU time it took, then starts a new period', async () => {
    const hold = new EventLoopHold(5);
    hold.start();
    try {
      await sleep(20);
      blockFor(150);
      await sleep(20);
      expect(hold.takeMaxMs()).toBeGreaterThanOrEqual(150);
      // The next period saw no block: only the timer's own turns.
      await sleep(50);
      expect(hold.takeMaxMs()).toBeLessThan(50);
    } finally {
      hold.stop();
    }
  });
});
