import { writeFile } from 'node:fs/promises';

/** How often the worker touches its heartbeat file, by default (ms). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;

/**
 * The worker's liveness signal (it serves no HTTP): writes the current time to `file` every
 * `intervalMs` while `alive()` holds (the NATS connection is open and the memory backend is
 * ready). The Kubernetes startup and liveness probes (`docker/k8s/worker.yaml`) fail while the
 * file is missing or older than a few intervals, so a worker that cannot compact (connection
 * dead, database not migrated, folder not writable, event loop stuck) is restarted.
 * A beat is skipped while the previous `alive()` has not answered yet.
 * @returns stops the heartbeat.
 */
export function startLivenessHeartbeat(
  file: string,
  alive: () => boolean | Promise<boolean>,
  intervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS,
): () => void {
  let beating = false;
  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      if (await alive()) await writeFile(file, `${Date.now()}\n`);
    } catch {
      // A failed probe or write is a missed beat: the probe notices the stale file.
    } finally {
      beating = false;
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
