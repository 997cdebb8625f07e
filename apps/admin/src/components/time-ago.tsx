import { exactTime, relativeTime } from '../lib/time-format';

/** "5 minutes ago", with the exact time on hover. */
export function TimeAgo({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {relativeTime(iso)}
    </time>
  );
}
