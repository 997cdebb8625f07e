import { ErrorCode, NatsError } from 'nats';
import { NatsRequestError } from './nats-request.error';

/**
 * Request failures worth another try within the write budget: nobody answered in time (a server
 * going away, the client reconnecting), no JetStream server took the request, or JetStream said
 * it is unavailable for now (a stream leader being elected).
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  ErrorCode.Timeout,
  ErrorCode.NoResponders,
  ErrorCode.Disconnect,
  ErrorCode.JetStream408RequestTimeout,
]);

/** Whether `error` is worth another try (see `TRANSIENT_CODES`). */
export function isTransient(error: unknown): boolean {
  return error instanceof NatsRequestError && TRANSIENT_CODES.has(error.natsCode ?? '');
}

/**
 * Whether a failed write may still be stored: it was sent and no answer came (a timeout, a lost
 * connection). Not when nobody took it (no responders) or the server answered with an error.
 */
export function mayHaveBeenStored(error: unknown): boolean {
  if (!(error instanceof NatsRequestError) || error.natsCode === ErrorCode.NoResponders)
    return false;
  return !(error.cause instanceof NatsError && error.cause.api_error !== undefined);
}
