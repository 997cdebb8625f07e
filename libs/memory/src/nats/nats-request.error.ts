import { NatsError } from 'nats';
import { BackendUnavailableError } from '../core/errors';
import { rethrowTranslated } from '../core/rethrow-translated';

/**
 * A request to the NATS server failed for a reason of the connection or the server (a timeout
 * while it is down, a closed connection, JetStream not answering), not because of the session's
 * data. `cause` holds the client's error; `natsCode` its code (such as `TIMEOUT`).
 */
export class NatsRequestError extends BackendUnavailableError {
  readonly natsCode: string | undefined;

  constructor(operation: string, session: string | null, cause: unknown) {
    const code = cause instanceof NatsError ? cause.code : undefined;
    super(
      'NATS',
      operation,
      session,
      cause,
      code === 'TIMEOUT'
        ? ' (no answer in time: is the NATS server reachable, with JetStream enabled?)'
        : '',
    );
    this.natsCode = code;
  }
}

/** Whether a write lost the compare-and-swap: the key's revision is not the one read. */
export function isWrongLastSequence(error: unknown): boolean {
  if (!(error instanceof NatsError)) return false;
  return error.api_error?.err_code === 10071 || /wrong last sequence/i.test(error.message);
}

/** Runs one request, turning the client's own errors into a {@link NatsRequestError}. */
export async function natsRequest<T>(
  operation: string,
  session: string | null,
  fn: () => Promise<T>,
): Promise<T> {
  return rethrowTranslated(fn, (error) =>
    error instanceof NatsError && !isWrongLastSequence(error)
      ? new NatsRequestError(operation, session, error)
      : error,
  );
}
