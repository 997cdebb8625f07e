/** A length of time: whole milliseconds, or a string such as `500ms`, `2s`, `15m`, `12h`, `30d`, `4w`. */
export type Duration = number | string;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const DURATION_PATTERN = /^(\d{1,15})(ms|s|m|h|d|w)$/;

/**
 * The milliseconds of `value` (see {@link Duration}).
 * @param name what the value is, for the error (`retention.maxIdle`, `MEMORY_RETENTION_MAX_IDLE`).
 * @throws RangeError naming `name` when `value` is not a positive duration.
 */
export function parseDuration(name: string, value: Duration): number {
  const ms =
    typeof value === 'number'
      ? value
      : typeof value === 'string'
        ? fromText(value.trim())
        : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new RangeError(
      `${name} must be a positive duration such as "30d", "12h", "15m", "2s" or "500ms" (or whole milliseconds), got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

function fromText(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  return match ? Number(match[1]) * UNIT_MS[match[2]] : Number.NaN;
}
