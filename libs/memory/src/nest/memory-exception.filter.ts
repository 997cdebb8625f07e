import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { MemoryError, type MemoryErrorCode } from '../core/errors';

/**
 * The HTTP status of each {@link MemoryErrorCode}: the caller's bad input 400, conflicts 409, too
 * large 413, stored data that cannot be used 422, a dependency that is down or full 502/503/507,
 * the library's own faults 500. The one table the admin server, the examples and
 * {@link MemoryExceptionFilter} answer with.
 */
export const MEMORY_ERROR_HTTP_STATUS: Readonly<Record<MemoryErrorCode, number>> = {
  INVALID_MESSAGE: 400,
  INVALID_SESSION_ID: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  INVALID_SAVE_OPTION: 400,
  INVALID_QUERY: 400,
  INVALID_META: 400,
  INVALID_IMPORT_LINE: 400,
  INVALID_CURSOR: 409,
  SNAPSHOT_CONFLICT: 409,
  IMPORT_CONFLICT: 409,
  IMPORT_INCOMPLETE: 503,
  SNAPSHOTS_UNSUPPORTED: 409,
  CONCURRENT_UPDATE: 409,
  SESSION_CHANGED: 409,
  SESSION_TOO_LARGE: 413,
  CORRUPT_SESSION: 422,
  THREAD_MESSAGES_MISSING: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  LLM_REQUEST_FAILED: 502,
  SESSION_SAVE_FAILED: 503,
  BACKEND_UNAVAILABLE: 503,
  EMBEDDING_FAILED: 503,
  VECTOR_EXTENSION_MISSING: 503,
  HEALTH_TIMEOUT: 503,
  COMPACTION_SHUTDOWN: 503,
  COMPACTION_UNANSWERED: 503,
  STORAGE_FULL: 507,
  BACKEND_ERROR: 500,
  DIMENSION_MISMATCH: 500,
};

/** The JSON body {@link MemoryExceptionFilter} answers with. */
export interface MemoryErrorBody {
  statusCode: number;
  /** The error's stable {@link MemoryErrorCode}. */
  code: MemoryErrorCode;
  message: string;
}

/**
 * The status and body of `error`. The message of an unreachable backend is replaced by a generic
 * one, since the driver's text names hosts and ports; every other message is the library's own.
 */
export function memoryErrorBody(error: MemoryError): MemoryErrorBody {
  const statusCode = MEMORY_ERROR_HTTP_STATUS[error.code] ?? 500;
  const message =
    error.code === 'BACKEND_UNAVAILABLE'
      ? 'the memory backend is unavailable; retry when it is back'
      : error.message;
  return { statusCode, code: error.code, message };
}

/** What the filter needs of Express's response or Fastify's reply. */
interface HttpReply {
  headersSent?: boolean;
  status?(code: number): HttpReply;
  code?(code: number): HttpReply;
  json?(body: unknown): unknown;
  send?(body: unknown): unknown;
}

/** How many `cause`s deep {@link causeChain} follows: a driver's error rarely nests further. */
const MAX_LOGGED_CAUSES = 5;

/**
 * The messages of `error`'s causes, outermost first (`cause.message`, or the value itself when it
 * is not an error), for the server log: the driver's own text is what says why a store failed.
 */
function causeChain(error: Error): string[] {
  const messages: string[] = [];
  let cause: unknown = error.cause;
  while (cause !== undefined && cause !== null && messages.length < MAX_LOGGED_CAUSES) {
    // The class's name: `pg` names every error of the server just `error`.
    messages.push(
      cause instanceof Error ? `${cause.constructor.name}: ${cause.message}` : String(cause),
    );
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return messages;
}

/**
 * Answers the library's errors (`MemoryError`) in an HTTP app with their status from
 * {@link MEMORY_ERROR_HTTP_STATUS} and a `{ statusCode, code, message }` body, instead of Nest's
 * generic 500: register it with `app.useGlobalFilters(new MemoryExceptionFilter())` or as an
 * `APP_FILTER` provider. Works on Express and Fastify; other errors are left to Nest.
 *
 * A 5xx is also logged at error level through Nest's `Logger` (context `MemoryExceptionFilter`),
 * as Nest's own filter logs a server error: the error's code, message and stack, and the messages
 * of its causes (the driver's text, such as a missing table). The reply never carries those.
 */
@Catch(MemoryError)
export class MemoryExceptionFilter implements ExceptionFilter<MemoryError> {
  private readonly logger = new Logger(MemoryExceptionFilter.name);

  catch(error: MemoryError, host: ArgumentsHost): void {
    const body = memoryErrorBody(error);
    if (body.statusCode >= 500) this.logServerError(error);
    const reply = host.switchToHttp().getResponse<HttpReply>();
    if (reply.headersSent) return;
    if (typeof reply.status === 'function' && typeof reply.json === 'function') {
      reply.status(body.statusCode).json?.(body);
    } else {
      reply.code?.(body.statusCode).send?.(body);
    }
  }

  private logServerError(error: MemoryError): void {
    const causes = causeChain(error).map((message) => `; caused by ${message}`);
    this.logger.error(`${error.code}: ${error.message}${causes.join('')}`, error.stack);
  }
}
