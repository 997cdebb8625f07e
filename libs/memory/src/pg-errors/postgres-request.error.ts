import { BackendError, BackendUnavailableError, MemoryError } from '../core/errors';
import { rethrowTranslated } from '../core/rethrow-translated';

/**
 * SQLSTATEs of "relation, schema, function or column does not exist": the migrations were never
 * run (the tables, their schema, or the procedure or column of a later migration are missing).
 */
const NOT_MIGRATED: ReadonlySet<string> = new Set(['42P01', '3F000', '42883', '42703']);

/**
 * SQLSTATEs that mean "the server or the connection is not there to serve this", not "this
 * request is wrong": connection exceptions (class 08), shutdowns and start-up (57P01–57P03), too
 * many connections (53300), authentication or database missing (28000, 28P01, 3D000), timeouts
 * (query canceled by `statement_timeout` 57014, lock timeout 55P03, idle-in-transaction timeout
 * 25P03) and missing tables, schema, save procedure or column (42P01, 3F000, 42883, 42703).
 */
const UNAVAILABLE_SQLSTATES: ReadonlySet<string> = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '28000',
  '28P01',
  '3D000',
  '57014',
  '55P03',
  '25P03',
  ...NOT_MIGRATED,
]);

/** Socket and DNS errors of the client (`code` on Node's errors). */
const UNAVAILABLE_SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);

/** What `pg`, `pg-pool` and TypeORM say, without a code, when there is no usable connection. */
const UNAVAILABLE_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection timeout|encountered a connection error|not queryable|pool after calling end|connection is not (yet )?established|not connected/i;

/**
 * A request to PostgreSQL failed for a reason of the connection or the server (unreachable, a
 * dropped connection, a timeout, missing tables), not because of the session's data: retry later.
 * `cause` holds the driver's error; `pgCode` its SQLSTATE or socket code (such as `ECONNREFUSED`).
 */
export class PostgresRequestError extends BackendUnavailableError {
  readonly pgCode: string | undefined;

  constructor(operation: string, session: string | null, cause: unknown) {
    const code = errorCode(cause);
    super(
      'PostgreSQL',
      operation,
      session,
      cause,
      code !== undefined && NOT_MIGRATED.has(code)
        ? ' (the memory tables are missing: run the migrations, or open with ensureSchema: true)'
        : '',
    );
    this.pgCode = code;
  }
}

/**
 * PostgreSQL refused a request while up and reachable (a constraint, a value it cannot store, a
 * bug): retrying will not help. The message names the operation and the SQLSTATE only (the
 * server's text may quote stored data); `cause` holds the driver's error for the log.
 */
export class PostgresQueryError extends BackendError {
  readonly pgCode: string | undefined;

  constructor(operation: string, session: string | null, cause: unknown) {
    const code = errorCode(cause);
    super('PostgreSQL', operation, session, code, cause);
    this.pgCode = code;
  }
}

/**
 * Whether a driver error means PostgreSQL is unreachable or unable to serve (see
 * {@link UNAVAILABLE_SQLSTATES}), rather than refusing this request.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined) {
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'CannotExecuteNotConnectedError' || name === 'ConnectionIsNotSetError') return true;
  const message = error instanceof Error ? error.message : String(error);
  return UNAVAILABLE_MESSAGES.test(message);
}

/**
 * Runs one request, turning the driver's errors into a {@link PostgresRequestError} (the server
 * is unavailable: `BACKEND_UNAVAILABLE`) or a {@link PostgresQueryError} (it refused the request:
 * `BACKEND_ERROR`); the library's own errors (conflicts, invalid cursors, corrupt rows, invalid
 * input) and RangeErrors pass through as they are.
 */
export async function pgRequest<T>(
  operation: string,
  session: string | null,
  fn: () => Promise<T>,
): Promise<T> {
  return rethrowTranslated(fn, (error) => {
    if (error instanceof MemoryError || error instanceof RangeError) return error;
    if (isPostgresUnavailable(error)) return new PostgresRequestError(operation, session, error);
    // Only the driver's own errors (they carry a SQLSTATE) are hidden behind a query error; any
    // other error, such as the reason of a caller's abort signal, is passed on as it is.
    if (errorCode(error) === undefined) return error;
    return new PostgresQueryError(operation, session, error);
  });
}

function errorCode(error: unknown): string | undefined {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  const code = driverError?.code ?? (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
