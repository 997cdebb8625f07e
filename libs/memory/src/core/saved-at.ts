import { InvalidSaveOptionError } from './errors';
import type { SaveOptions } from './memory.interface';

/** An ISO 8601 date and time with a time zone: `YYYY-MM-DDThh:mm[:ss[.fff…]]` then `Z` or `±hh:mm`. */
const ISO_DATE_TIME =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The time a save records for its batch, as `toISOString` text: `opts.savedAt` when given,
 * else `now()`. Checked before anything is written.
 * @throws InvalidSaveOptionError naming `savedAt` when it is not an ISO 8601 date and time with a
 * time zone, or names a day or hour that does not exist.
 */
export function batchSavedAt(
  opts: Pick<SaveOptions, 'savedAt'> | undefined,
  now: () => Date,
): string {
  const given: unknown = opts?.savedAt;
  if (given === undefined) return now().toISOString();
  if (typeof given !== 'string' || !ISO_DATE_TIME.test(given)) {
    throw new InvalidSaveOptionError(
      'savedAt',
      `${JSON.stringify(String(given).slice(0, 64))} is not an ISO 8601 date and time with a time zone, such as 2026-12-04T16:01:28.000Z`,
    );
  }
  const time = new Date(given);
  // Date accepts some impossible fields (such as February 30th) by rolling over: compare back.
  if (Number.isNaN(time.getTime()) || !sameCalendarFields(given, time)) {
    throw new InvalidSaveOptionError(
      'savedAt',
      `${JSON.stringify(given)} names a date or time that does not exist`,
    );
  }
  return time.toISOString();
}

/** Whether the written date and time fields are the ones `time` holds in the text's own offset. */
function sameCalendarFields(text: string, time: Date): boolean {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(text);
  const offsetMinutes = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]))
    : 0;
  const local = new Date(time.getTime() + offsetMinutes * 60_000).toISOString();
  // `YYYY-MM-DDThh:mm` is in every accepted form; seconds are checked when written.
  const written = text.slice(0, text.length > 16 && text[16] === ':' ? 19 : 16);
  return local.startsWith(written);
}
