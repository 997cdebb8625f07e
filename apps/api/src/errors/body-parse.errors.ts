import type { ErrorRequestHandler } from 'express';
import { ApiHttpError } from './api-http.error';
import { sendApiError } from './api-exception.filter';
import { JsonBodyShapeError } from '../body/json-body-shape';

/** What the client is told for each body-parser error type we name. */
const BODY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  'entity.too.large': {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'the request body is too large',
  },
  'encoding.unsupported': {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: "the request body's Content-Encoding is not supported (use gzip, deflate, br or none)",
  },
  'charset.unsupported': {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: "the request body's charset is not supported (use utf-8)",
  },
  'entity.parse.failed': {
    status: 400,
    code: 'INVALID_BODY',
    message: 'the request body is not valid JSON',
  },
};

/**
 * An error the body parser raised: `http-errors` marks them with a 4xx `status` and `expose`
 * (most also with a `type`), broken compressed streams and bodies cut short included.
 */
function isBodyParserError(error: unknown): error is Error & { status: number; type?: string } {
  if (typeof error !== 'object' || error === null) return false;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true;
}

/**
 * Express error middleware placed right after the body parser: its errors are the client's
 * fault, so they are answered at once as {@link ApiHttpError}s (400 `INVALID_BODY`, 413, 415;
 * a body refused for its shape, see `assertJsonBodyShape`, names the limit or the field),
 * without a stack trace in the log and without asking the backend whether it is up. Other errors pass on unchanged.
 */
export function bodyParseErrors(): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (!isBodyParserError(error)) return next(error);
    if (error instanceof JsonBodyShapeError) {
      return sendApiError(res, new ApiHttpError(400, error.code, error.message, error.field));
    }
    const known = error.type ? BODY_ERRORS[error.type] : undefined;
    sendApiError(
      res,
      known
        ? new ApiHttpError(known.status, known.code, known.message)
        : new ApiHttpError(
            400,
            'INVALID_BODY',
            `the request body could not be read (${error.message}); check its Content-Encoding and length`,
          ),
    );
  };
}
