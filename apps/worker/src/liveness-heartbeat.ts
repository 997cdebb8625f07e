import { writeFile } from 'node:fs/promises';

/** How often the worker touches its heartbeat file, by default (ms). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;

/**
 * The worker's liveness signal (it serves no HTTP): writes the current time to `file` every
 * `intervalMs` while `alive()` holds (the NATS connection is open). The Kubernetes liveness probe
 * (`docker/k8s/worker.yaml`) fails once the file is older than a few intervals, so a worker whose
 * connection died, or whose event loop is stuck, is restarted.
 * @returns stops the heartbeat.
 */
export function startLivenessHeartbeat(
  file: string,
  alive: () => boolean,
  intervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS,
): () => void {
  const beat = () => {
    if (alive()) void writeFile(file, `${Date.now()}\n`).catch(() => undefined);
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
