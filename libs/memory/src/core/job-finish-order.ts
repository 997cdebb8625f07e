import type { CompactionJob } from './compaction-job';

/** When the job finished (epoch ms), or -Infinity when it has no readable `finishedAt`. */
function finishedMs(job: CompactionJob): number {
  const ms = job.finishedAt === undefined ? NaN : Date.parse(job.finishedAt);
  return Number.isNaN(ms) ? -Infinity : ms;
}

/** Whether `stored` finished after `job`: `putIfNewer` then keeps `stored` (see the job store port). */
export function finishedAfter(stored: CompactionJob, job: CompactionJob): boolean {
  return finishedMs(stored) > finishedMs(job);
}
