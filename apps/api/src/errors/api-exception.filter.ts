import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Inject,
  Logger,
} from '@nestjs/common';
import {
  MEMORY_BACKEND,
  MEMORY_ERROR_HTTP_STATUS,
  BackendUnavailableError,
  InvalidMessageError,
  InvalidMetaError,
  InvalidQueryError,
  MemoryError,
  type MemoryBackend,
} from '@agent-memory/memory';
import type { Request, Response } from 'express';
import type { ApiErrorBody } from '@agent-memory/api-contract';
import type { ApiHttpError } from './api-http.error';

/** How long the filter waits for `backend.check()` when deciding between 500 and 503. */
const BACKEND_CHECK_TIMEOUT_MS = 2000;

/**
 * Answers a request with `error` from an Express middleware. Middleware that runs before routing
 * answers by itself rather than with `next(error)`: the dashboard's static-file handler (when the
 * dashboard is built) turns every error on an excluded path such as `/api/…` into a 404.
 */
export function sendApiError(response: Response, error: ApiHttpError): void {
  response.status(error.getStatus()).json(httpExceptionBody(error));
}

/**
 * Renders every error as `{ statusCode, code, message }` (the health probes keep Terminus's body): HTTP exceptions keep their status,
 * `MemoryError`s map by code (the library's `MEMORY_ERROR_HTTP_STATUS`), and any
 * other error becomes 503 `BACKEND_UNAVAILABLE` when the backend does not answer its check, else
 * 500 `INTERNAL_ERROR` (logged; its text is not sent).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  constructor(@Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    if (
      exception instanceof HttpException &&
      http.getRequest<Request>().path.startsWith('/health/')
    ) {
      // Probes keep Terminus's own body ({ status, info, error, details }).
      response.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    const body = await this.toBody(exception);
    if (response.headersSent) return;
    response.status(body.statusCode).json(body);
  }

  private async toBody(exception: unknown): Promise<ApiErrorBody> {
    if (exception instanceof HttpException) return httpExceptionBody(exception);
    if (exception instanceof MemoryError && exception.code === 'BACKEND_UNAVAILABLE') {
      // The driver's text names hosts and ports: never to the client, and only at debug level
      // in the log (warn says what failed and the driver's code).
      if (exception instanceof BackendUnavailableError) {
        const code = exception.causeCode;
        this.logger.warn(`${exception.summary}${code ? ` (${code})` : ''}`);
      } else {
        this.logger.warn(`the ${this.backend.kind} memory backend is unavailable`);
      }
      this.logger.debug?.(exception.message);
      return {
        statusCode: 503,
        code: exception.code,
        message: `the ${this.backend.kind} memory backend is unavailable; retry when it is back`,
      };
    }
    if (exception instanceof MemoryError && exception.code === 'EMBEDDING_FAILED') {
      // The reason quotes the model's URL and its answer: the log gets it, the client the code.
      this.logger.warn(exception.message);
      return {
        statusCode: 503,
        code: exception.code,
        message:
          'embedding the recall query failed or took too long; retry later (details in the server log)',
      };
    }
    if (exception instanceof MemoryError) {
      const body: ApiErrorBody = {
        statusCode: MEMORY_ERROR_HTTP_STATUS[exception.code] ?? 500,
        code: exception.code,
        message: exception.message,
      };
      if (exception instanceof InvalidMessageError) body.field = exception.path;
      if (exception instanceof InvalidQueryError) body.field = exception.field;
      if (exception instanceof InvalidMetaError) body.field = exception.key;
      if (body.statusCode >= 500) {
        // The message holds no driver text; the cause does (it may quote stored data or name
        // hosts): logged at debug level only.
        this.logger.error(exception.message);
        if (exception.cause instanceof Error) this.logger.debug?.(exception.cause.message);
      }
      return body;
    }
    const unreachable = await this.backendProblem();
    if (unreachable) {
      // The reason names hosts and ports: not for the client, and logged at debug level only.
      this.logger.warn(`the ${this.backend.kind} memory backend is unreachable`);
      this.logger.debug?.(`the ${this.backend.kind} memory backend is unreachable: ${unreachable}`);
      return {
        statusCode: 503,
        code: 'BACKEND_UNAVAILABLE',
        message: `the ${this.backend.kind} memory backend is unreachable; retry when it is back`,
      };
    }
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return {
      statusCode: 500,
      code: 'INTERNAL_ERROR',
      message: 'internal server error (see the server log)',
    };
  }

  /** Why the backend is unreachable, or null when its check passes. */
  private async backendProblem(): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.backend.check(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${BACKEND_CHECK_TIMEOUT_MS} ms`)),
            BACKEND_CHECK_TIMEOUT_MS,
          );
        }),
      ]);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  }
}

const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** The `{ statusCode, code, message, field? }` body of an HTTP exception. */
export function httpExceptionBody(exception: HttpException): ApiErrorBody {
  const statusCode = exception.getStatus();
  const response = exception.getResponse();
  const fields =
    typeof response === 'object' && response !== null ? (response as Record<string, unknown>) : {};
  const message = Array.isArray(fields.message)
    ? fields.message.join('; ')
    : typeof fields.message === 'string'
      ? fields.message
      : exception.message;
  const body: ApiErrorBody = {
    statusCode,
    code:
      typeof fields.code === 'string'
        ? fields.code
        : (STATUS_CODES[statusCode] ?? `HTTP_${statusCode}`),
    message,
  };
  if (typeof fields.field === 'string') body.field = fields.field;
  return body;
}
