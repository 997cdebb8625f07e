/** The in-process store's defaults (plain values: importing this loads nothing). */

/** Messages the in-process store keeps per session when `MEMORY_SIMPLE_CAPACITY` is not set. */
export const DEFAULT_SIMPLE_CAPACITY = 10_000;
