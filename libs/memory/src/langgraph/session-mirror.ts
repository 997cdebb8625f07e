import type { BaseMessage } from '@langchain/core/messages';
import type { MemoryBackend } from '../core/backend.interface';
import type { Message } from '../core/message';
import { SessionTooLargeError } from '../core/errors';
import { isValidSessionId } from '../core/session-id';
import { fromBaseMessages } from '../langchain/base-message.converter';

/**
 * Appends the messages a checkpoint added to the session with the thread's id, as our messages
 * (the `/langchain` converters): what `retrieve()`, the dashboard, recall and export read. A
 * thread id that is not a valid session id has no session; a message type our model has no role
 * for (a `FunctionMessage`, a `ChatMessage` with a custom role) is left out of it. The save is
 * keyed by the checkpoint, so a `put` retried after a failure does not append twice. Messages
 * the session's store cannot take (NATS keeps a session in one value of at most the server's
 * `max_payload`) are left out of the session: the checkpoints, which do not depend on it, go on.
 */
export async function mirrorToSession(
  backend: MemoryBackend,
  threadId: string,
  checkpointId: string,
  added: readonly BaseMessage[],
): Promise<void> {
  if (added.length === 0 || !isValidSessionId(threadId)) return;
  const messages = added.flatMap((message): Message[] => {
    try {
      return fromBaseMessages([message]);
    } catch {
      return [];
    }
  });
  if (messages.length === 0) return;
  const session = await backend.open(threadId);
  try {
    await session.save(messages, { idempotencyKey: `langgraph-${checkpointId}` });
  } catch (error) {
    if (!(error instanceof SessionTooLargeError)) throw error;
  }
}

/** Removes the session of a thread, if it has one. */
export async function deleteMirroredSession(
  backend: MemoryBackend,
  threadId: string,
): Promise<void> {
  if (isValidSessionId(threadId)) await backend.delete(threadId);
}
