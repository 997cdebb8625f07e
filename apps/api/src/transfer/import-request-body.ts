import type { Request, RequestHandler } from 'express';
import { sendApiError } from '../errors/api-exception.filter';
import { ApiHttpError } from '../errors/api-http.error';

/** Longest line `POST /api/import` reads: 8 MiB, one session (parsing it stays in tens of ms). */
export const MAX_IMPORT_LINE_BYTES = 8 * 1024 * 1024;
/** Most bytes one `POST /api/import` reads: 1 GiB. Larger moves split the file or use the CLI. */
export const MAX_IMPORT_BODY_BYTES = 1024 * 1024 * 1024;

/** The media type of JSON Lines the import route takes. */
export const NDJSON = 'application/x-ndjson';

const tooLarge = () =>
  new ApiHttpError(
    413,
    'PAYLOAD_TOO_LARGE',
    `the import body is over ${MAX_IMPORT_BODY_BYTES} bytes; split it, or use "agent-memory import"`,
  );

/**
 * The request's body as it arrives, for the import to read a line at a time: no parser has
 * buffered it (see {@link importMediaTypeGate}). Checks the media type and encoding before
 * reading, and stops at {@link MAX_IMPORT_BODY_BYTES}.
 * @throws ApiHttpError 415 for another media type or a compressed body, 413 past the size bound.
 */
export function importRequestBody(req: Request): AsyncIterable<Uint8Array> {
  assertImportMediaType(req);
  if (Number(req.headers['content-length'] ?? 0) > MAX_IMPORT_BODY_BYTES) throw tooLarge();
  return boundedBody(req);
}

/**
 * Answers `POST /api/import` with 415 before the JSON body parser sees it when it is not JSON
 * Lines: JSON Lines sent as `application/json` would otherwise fail that parser as a 400.
 * Mounted after the token gate and before the JSON parser.
 */
export function importMediaTypeGate(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path.replace(/\/+$/, '').toLowerCase() !== '/api/import') {
      next();
      return;
    }
    try {
      assertImportMediaType(req);
    } catch (error) {
      sendApiError(res, error as ApiHttpError);
      return;
    }
    next();
  };
}

/** @throws ApiHttpError 415 unless the body is uncompressed JSON Lines. */
function assertImportMediaType(req: Request): void {
  if (!req.is(NDJSON)) {
    throw new ApiHttpError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `send the sessions as JSON Lines with content-type ${NDJSON}`,
    );
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') {
    throw new ApiHttpError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'send the import body uncompressed (no Content-Encoding)',
    );
  }
}

async function* boundedBody(req: Request): AsyncGenerator<Uint8Array> {
  let read = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    read += chunk.length;
    if (read > MAX_IMPORT_BODY_BYTES) throw tooLarge();
    yield chunk;
  }
}
