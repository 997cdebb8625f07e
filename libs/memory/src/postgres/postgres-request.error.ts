import { BackendUnavailableError, MemoryError } from '../core/errors';

/** SQLSTATE of "relation does not exist": the tables were never migrated. */
const UNDEFINED_TABLE = '42P01';

/**
 * A request to PostgreSQL failed for a reason of the connection or the server (unreachable, a
 * dropped connection, a statement timeout, missing tables), not because of the session's data.
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
      code === UNDEFINED_TABLE
        ? ' (the memory tables are missing: run the migrations, or open with ensureSchema: true)'
        : '',
    );
    this.pgCode = code;
  }
}

/**
 * Runs one request, turning the driver's errors into a {@link PostgresRequestError}; the library's
 * own errors (conflicts, invalid cursors, corrupt rows) and RangeErrors pass through as they are.
 */
export async function pgRequest<T>(
  operation: string,
  session: string | null,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof MemoryError || error instanceof RangeError) throw error;
    throw new PostgresRequestError(operation, session, error);
  }
}

function errorCode(error: unknown): string | undefined {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  const code = driverError?.code ?? (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
