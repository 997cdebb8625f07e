import type { Request } from 'express';
import type { AuditDetailsView } from '@agent-memory/api-contract';

/** What each request's change did, set by its route; gone with the request. */
const detailsOf = new WeakMap<Request, AuditDetailsView>();

/** Records what the change of `request` did, for its audit entry (see `AuditRecorder`). */
export function setAuditDetails(request: Request, details: AuditDetailsView): void {
  detailsOf.set(request, details);
}

/** What the route of `request` said its change did, or null. */
export function auditDetails(request: Request): AuditDetailsView | null {
  return detailsOf.get(request) ?? null;
}
