import { HttpException } from '@nestjs/common';

/**
 * An HTTP error with a stable `code` (such as `INVALID_QUERY`) and, for validation errors, the
 * `field` at fault. The exception filter renders it as `{ statusCode, code, message, field? }`.
 */
export class ApiHttpError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super({ statusCode: status, code, message, ...(field ? { field } : {}) }, status);
  }
}

/** 400 for a bad query parameter or body field; `field` names it (`limit`, `messages[2].role`). */
export function invalidField(code: string, field: string, reason: string): ApiHttpError {
  return new ApiHttpError(400, code, `${field}: ${reason}`, field);
}
