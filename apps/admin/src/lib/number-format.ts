const integer = new Intl.NumberFormat('en');
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** 12,345 */
export function formatCount(value: number): string {
  return integer.format(value);
}

/** 12.3K, for tight spaces (the exact count goes in a tooltip). */
export function formatCompact(value: number): string {
  return compact.format(value);
}
