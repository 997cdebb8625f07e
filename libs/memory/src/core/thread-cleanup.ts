import type { MemoryBackend } from './backend.interface';
import type { CheckpointStorage } from './checkpoint-storage.interface';

/**
 * Makes `backend`'s `delete` and `erase` also remove the LangGraph thread with each removed
 * session's id (its checkpoints, writes and message log in the backend's `checkpointStorage`), so that retention, erase
 * by resource and the admin API's delete cover threads as they cover sessions. The thread goes
 * after its session, only when the session went (a conditional delete that finds the session
 * changed throws first). Changes and returns `backend`.
 */
export function removingThreads<
  B extends MemoryBackend & { readonly checkpointStorage: CheckpointStorage },
>(backend: B): B {
  const storage = backend.checkpointStorage;
  const deleteSession = backend.delete.bind(backend);
  const eraseSessions = backend.erase.bind(backend);
  backend.delete = async (sessionId, opts) => {
    await deleteSession(sessionId, opts);
    await storage.deleteThread(sessionId);
  };
  backend.erase = async (q) => {
    const erased = await eraseSessions(q);
    for (const sessionId of erased.sessionIds) await storage.deleteThread(sessionId);
    return erased;
  };
  return backend;
}
