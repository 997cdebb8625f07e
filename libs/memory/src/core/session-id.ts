import { InvalidSessionIdError } from './errors';

/** Dot-separated tokens: every valid id is also a valid NATS key and a safe file name. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_=-]*(\.[A-Za-z0-9_=-]+)*$/;
/** The longest session id accepted, in characters. */
export const MAX_SESSION_ID_LENGTH = 128;

/**
 * Checks a session id before any I/O.
 * @throws InvalidSessionIdError saying what is wrong with it.
 */
export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== 'string') throw new InvalidSessionIdError(String(id), 'it must be a string');
  if (id.length === 0) throw new InvalidSessionIdError(id, 'it is empty');
  if (id.length > MAX_SESSION_ID_LENGTH) {
    throw new InvalidSessionIdError(
      id,
      `it is ${id.length} characters long, at most ${MAX_SESSION_ID_LENGTH} are allowed`,
    );
  }
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new InvalidSessionIdError(
      id,
      'use letters, digits, "_", "=" and "-" in dot-separated tokens, starting with a letter or digit',
    );
  }
}

/** Whether `id` is a valid session id (see {@link assertSessionId}); never throws. */
export function isValidSessionId(id: unknown): id is string {
  return (
    typeof id === 'string' && id.length <= MAX_SESSION_ID_LENGTH && SESSION_ID_PATTERN.test(id)
  );
}
