const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const exact = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });

const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Infinity],
];

/** "3 minutes ago" for an ISO time, relative to `nowMs`. */
export function relativeTime(iso: string, nowMs = Date.now()): string {
  let value = (Date.parse(iso) - nowMs) / 1000;
  if (Math.abs(value) < 5) return 'just now';
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return exact.format(new Date(iso));
}

/** The full local date and time of an ISO time, for a tooltip. */
export function exactTime(iso: string): string {
  return exact.format(new Date(iso));
}
