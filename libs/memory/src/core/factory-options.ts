/**
 * Start-up checks of a backend factory's options, so that a missing or bad option fails with an
 * error naming it (`postgresBackend: "url" is missing …`) instead of a `TypeError` deep in a driver.
 */

/** Throws a `TypeError` unless `options` is an object. */
export function assertOptionsObject(factory: string, options: unknown): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${factory} needs an options object, got ${describeValue(options)}`);
  }
}

/** Throws a `TypeError` unless exactly one of `names` is set (not undefined). */
export function assertOneOfOptions(
  factory: string,
  options: object,
  names: readonly [string, string],
  hint: string,
): void {
  const set = names.filter((name) => (options as Record<string, unknown>)[name] !== undefined);
  if (set.length === 1) return;
  const [a, b] = names;
  throw new TypeError(
    set.length === 0
      ? `${factory} needs "${a}" or "${b}", and neither is set (${hint})`
      : `${factory} takes "${a}" or "${b}", not both`,
  );
}

/** Throws a `TypeError` unless `value` is a non-empty string (or, with `optional`, undefined). */
export function assertStringOption(factory: string, name: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(
      `${factory}: "${name}" must be a non-empty string, got ${describeValue(value)}`,
    );
  }
}

/** Throws a `RangeError` unless `value` is undefined or a whole number of at least `min`. */
export function assertWholeNumberOption(
  factory: string,
  name: string,
  value: unknown,
  min: number,
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RangeError(
      `${factory}: "${name}" must be a whole number ≥ ${min}, got ${describeValue(value)}`,
    );
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined (is the environment variable set?)';
  if (typeof value === 'string') return JSON.stringify(value);
  return value === null ? 'null' : `${typeof value} ${String(value)}`;
}
