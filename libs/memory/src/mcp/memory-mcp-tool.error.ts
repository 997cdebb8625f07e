/**
 * A tool failure that is no library error, with a stable `code` the tool result's text starts
 * with: `SESSION_NOT_FOUND`, `RECALL_NOT_CONFIGURED`, or what an `authorize` rule throws (such as
 * the admin server's `FORBIDDEN_ROLE`).
 */
export class MemoryMcpToolError extends Error {
  constructor(
    /** Upper-case, such as `SESSION_NOT_FOUND`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'MemoryMcpToolError';
  }
}

/** The code a tool's error result starts with: the error's own `code`, else `INTERNAL_ERROR`. */
export function toolErrorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : 'INTERNAL_ERROR';
}

/**
 * The text after the code: the error's own message, except where it may name hosts, ports or
 * paths (an unreachable backend, an error without a code), which get a generic one.
 */
export function toolErrorMessage(code: string, error: unknown): string {
  if (code === 'BACKEND_UNAVAILABLE')
    return 'the memory backend is unavailable; retry when it is back';
  if (code === 'INTERNAL_ERROR') return 'the tool failed unexpectedly; the server logs the details';
  return error instanceof Error ? error.message : String(error);
}
