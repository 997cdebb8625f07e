import type { SessionInfo } from './backend.interface';
import { SessionChangedError } from './errors';
import type { ErasedSession } from './resource-erase';
import { sameSessionState } from './session-info';

/**
 * What a store's atomic erase step checks, on the session as stored at that moment: its metadata
 * and its description (null when the store cannot describe it: treat as not matching).
 */
export type StoredSessionCheck = (
  meta: Readonly<Record<string, string>>,
  info: SessionInfo | null,
) => boolean;

/**
 * `MemoryBackend.delete` with `ifUnchanged`, for a store whose atomic erase step (`eraseIf`: read,
 * check and remove under its own lock or compare-and-swap) takes a {@link StoredSessionCheck}.
 * @throws TypeError when `expected` describes another session.
 * @throws SessionChangedError when the stored session no longer matches `expected` (or is gone).
 */
export async function deleteIfUnchanged(
  sessionId: string,
  expected: SessionInfo,
  eraseIf: (check: StoredSessionCheck) => Promise<ErasedSession> | ErasedSession,
): Promise<void> {
  assertDescribes(sessionId, expected);
  const erased = await eraseIf((_meta, info) => info !== null && sameSessionState(info, expected));
  if (!erased) throw new SessionChangedError(sessionId);
}

/** @throws TypeError when `expected` (an `ifUnchanged`) is not a description of `sessionId`. */
export function assertDescribes(sessionId: string, expected: SessionInfo): void {
  if (expected === null || typeof expected !== 'object' || expected.id !== sessionId) {
    throw new TypeError(
      `delete(${JSON.stringify(sessionId)}, { ifUnchanged }) needs the SessionInfo of that session (inspect or list gives it)`,
    );
  }
}
