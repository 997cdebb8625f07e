import { jsonShapeProblem } from '@agent-memory/memory';

/** Deepest nesting of objects and arrays a JSON body may have (a message needs about 6). */
export const MAX_JSON_DEPTH = 64;
/**
 * Most objects and arrays one JSON body may hold: room for the largest append (500 messages,
 * 10,000 parts, 2,000 tool calls) with margin, while any body under it parses in a few tens of ms.
 */
export const MAX_JSON_CONTAINERS = 50_000;

/** The bounds of every JSON text the API parses: request bodies and each line of an import. */
export const JSON_BODY_LIMITS = { maxDepth: MAX_JSON_DEPTH, maxContainers: MAX_JSON_CONTAINERS };

/** Why a JSON body is refused before it is parsed: the limit it passed or a field it names twice. */
export class JsonBodyShapeError extends Error {
  /** Read by the body parser's error handling: a client error, shown to the client. */
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.shape.refused';
  readonly code = 'INVALID_BODY';

  constructor(
    /** The field at fault, or `body`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks a JSON body's shape before it is parsed (`jsonShapeProblem` with
 * {@link JSON_BODY_LIMITS}): depth, count of objects and arrays, no field named twice.
 * @param body UTF-8 bytes of the body.
 * @throws JsonBodyShapeError naming the limit or the repeated field.
 */
export function assertJsonBodyShape(body: Uint8Array): void {
  const problem = jsonShapeProblem(body, JSON_BODY_LIMITS);
  if (!problem) return;
  const message = problem.field === 'body' ? `the body ${problem.reason}` : problem.reason;
  throw new JsonBodyShapeError(problem.field, message);
}

/**
 * The JSON body parser's `verify` hook: {@link assertJsonBodyShape} on the raw body, so a refused
 * body is never parsed. Bodies in another UTF charset are checked as UTF-8 after decoding.
 */
export function verifyJsonBodyShape(
  _req: unknown,
  _res: unknown,
  body: Buffer,
  encoding: string | null,
): void {
  const utf8 = !encoding || /^utf-?8$/i.test(encoding);
  assertJsonBodyShape(utf8 ? body : Buffer.from(body.toString(encoding as BufferEncoding), 'utf8'));
}
