/** `updated_at` is kept at millisecond precision, the precision of list tokens and ISO strings. */
export const NOW_MS = "date_trunc('milliseconds', now())";
