/**
 * Writers for fault tests: each appends numbered one-message batches to its own session in a
 * loop, retries a failed append with the same `Idempotency-Key` (so a retry of a save that was
 * stored after all stores nothing twice), and records which texts were acknowledged.
 */
import { randomUUID } from 'node:crypto';

export interface WriterStats {
  /** Texts answered 201, per session, in order. */
  acknowledged: Map<string, string[]>;
  /** Answers by status (0: no answer: connection refused or reset). */
  statuses: Map<number, number>;
  /** Retries after a failed attempt. */
  retries: number;
}

export interface Writers {
  readonly stats: WriterStats;
  /** Stops the loops after their current append (retries included) and waits for them. */
  stop(): Promise<void>;
}

/**
 * Starts `count` writers against `send` (a function that POSTs one body to a session's messages
 * route with the given headers and resolves with the status, or rejects when no answer came).
 */
export function startWriters(
  count: number,
  prefix: string,
  send: (sessionId: string, body: unknown, headers: Record<string, string>) => Promise<number>,
): Writers {
  const stats: WriterStats = { acknowledged: new Map(), statuses: new Map(), retries: 0 };
  let stopping = false;
  const count1 = (status: number) =>
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
  const loop = async (writer: number) => {
    const sessionId = `${prefix}-${writer}`;
    const acked: string[] = [];
    stats.acknowledged.set(sessionId, acked);
    for (let n = 0; !stopping; n++) {
      const text = `${sessionId}#${n}`;
      const key = randomUUID();
      const body = { messages: [{ role: 'user', parts: [{ type: 'text', text }] }] };
      for (let attempt = 0; ; attempt++) {
        if (attempt > 0) {
          stats.retries++;
          await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 500)));
        }
        const status = await send(sessionId, body, { 'idempotency-key': key }).catch(() => 0);
        count1(status);
        if (status === 201) {
          acked.push(text);
          break;
        }
        if (status !== 0 && status !== 503 && status !== 500) {
          throw new Error(`append ${text} answered ${status}`);
        }
        // Once the test stops the writers (the server may be gone), an unanswered append is dropped.
        if (stopping && attempt >= 2) break;
      }
    }
  };
  const running = Array.from({ length: count }, (_, writer) => loop(writer));
  return {
    stats,
    async stop() {
      stopping = true;
      await Promise.all(running);
    },
  };
}

/** Counts of acknowledged texts missing from or stored more than once in `stored`, per session. */
export function lostAndDuplicated(
  acknowledged: Map<string, string[]>,
  stored: Map<string, string[]>,
): { acknowledged: number; lost: number; duplicated: number; outOfOrder: number } {
  let total = 0;
  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  for (const [sessionId, texts] of acknowledged) {
    const log = stored.get(sessionId) ?? [];
    const counts = new Map<string, number>();
    for (const text of log) counts.set(text, (counts.get(text) ?? 0) + 1);
    let last = -1;
    for (const text of texts) {
      total++;
      const times = counts.get(text) ?? 0;
      if (times === 0) lost++;
      if (times > 1) duplicated++;
      const at = log.indexOf(text);
      if (at >= 0 && at < last) outOfOrder++;
      if (at >= 0) last = at;
    }
  }
  return { acknowledged: total, lost, duplicated, outOfOrder };
}

/**
 * Whether the server honours `Idempotency-Key` on appends: two appends with one key to a fresh
 * session store one message.
 */
export async function supportsIdempotencyKeys(
  send: (sessionId: string, body: unknown, headers: Record<string, string>) => Promise<number>,
  count: (sessionId: string) => Promise<number>,
): Promise<boolean> {
  const sessionId = `idempotency-probe-${Date.now()}`;
  const body = { messages: [{ role: 'user', parts: [{ type: 'text', text: 'probe' }] }] };
  const headers = { 'idempotency-key': `probe-${sessionId}` };
  await send(sessionId, body, headers);
  await send(sessionId, body, headers);
  return (await count(sessionId)) === 1;
}
