/** The longest route parameter (session id, resource) an audit entry keeps, in characters. */
export const MAX_AUDIT_PARAM_CHARS = 256;

/** Ids of expired sessions an audit entry lists; `expiredCount` says how many there were. */
export const MAX_AUDIT_EXPIRED_IDS = 100;

/**
 * A route parameter as an audit entry keeps it: as sent up to {@link MAX_AUDIT_PARAM_CHARS}
 * characters, else cut there and marked with how much was left out, so a caller cannot fill the
 * log with what it sends.
 */
export function boundedAuditParam(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (value.length <= MAX_AUDIT_PARAM_CHARS) return value;
  return `${value.slice(0, MAX_AUDIT_PARAM_CHARS)}…[${value.length - MAX_AUDIT_PARAM_CHARS} more characters not kept]`;
}
