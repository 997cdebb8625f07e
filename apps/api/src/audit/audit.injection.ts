/** Injection token of the server's `AuditLog` (built by `auditLogFor` at start-up). */
export const AUDIT_LOG = Symbol('AUDIT_LOG');
