import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import {
  BackendUnavailableError,
  ConcurrentUpdateError,
  InvalidIdempotencyKeyError,
  InvalidMessageError,
  InvalidSessionIdError,
  MemoryError,
  SessionTooLargeError,
} from '@agent-memory/memory';
import type { Response } from 'express';

/** The memory errors a client caused, or can retry, as HTTP statuses; the rest are 500. */
function statusOf(error: MemoryError): number {
  if (
    error instanceof InvalidSessionIdError ||
    error instanceof InvalidMessageError ||
    error instanceof InvalidIdempotencyKeyError
  ) {
    return HttpStatus.BAD_REQUEST;
  }
  if (error instanceof SessionTooLargeError) return HttpStatus.PAYLOAD_TOO_LARGE;
  if (error instanceof ConcurrentUpdateError) return HttpStatus.CONFLICT;
  if (error instanceof BackendUnavailableError) return HttpStatus.SERVICE_UNAVAILABLE;
  return HttpStatus.INTERNAL_SERVER_ERROR;
}

/** Answers the library's errors with their stable `code`, so clients can act on them. */
@Catch(MemoryError)
export class MemoryErrorsFilter implements ExceptionFilter<MemoryError> {
  catch(error: MemoryError, host: ArgumentsHost): void {
    const status = statusOf(error);
    const message = status === 500 ? 'internal error' : error.message;
    host.switchToHttp().getResponse<Response>().status(status).json({ code: error.code, message });
  }
}
