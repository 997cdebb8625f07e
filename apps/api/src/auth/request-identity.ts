import type { Request } from 'express';
import type { TokenIdentity } from './admin-tokens';

/** Who signed each request in, set by the auth gate or the guard; gone with the request. */
const identities = new WeakMap<Request, TokenIdentity>();

/** Records that `request` was signed in as `identity`. */
export function setRequestIdentity(request: Request, identity: TokenIdentity): void {
  identities.set(request, identity);
}

/** Who signed `request` in, or null when neither the gate nor the guard has checked it. */
export function requestIdentity(request: Request): TokenIdentity | null {
  return identities.get(request) ?? null;
}
