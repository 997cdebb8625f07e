import type { Subscription } from 'rxjs';
import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { abortableDelay } from '../core/timeout';
import {
  consoleCompactionLogger,
  type CompactionLogger,
  type CompactionRequest,
  type CompactionRunner,
} from '../compaction/compaction-job.interface';
import {
  CompactionUnansweredError,
  CompactionWorkerError,
  type CompactionClientProxy,
  type CompactionWorkerReply,
} from './compaction-worker.protocol';
import type { CompactionResult } from '../core/compaction-job';

const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;

/** Where a {@link NatsCompactionRunner} publishes (the module's `compaction.nats`, after defaults). */
export interface NatsCompactionRunnerSettings {
  /** Servers of the client the runner opens itself; ignored when `client` is given. */
  servers: string[] | null;
  /** A client to publish on instead (never closed by the runner); null to open one on `servers`. */
  client: CompactionClientProxy | null;
  /** Subject the workers listen on. */
  subject: string;
  /** How long one try waits for a worker's answer (ms). */
  requestTimeoutMs: number;
  /** Tries per check. */
  maxAttempts: number;
}

/**
 * Sends each check to the compaction workers (`apps/worker`) as a NATS request on `subject`; the
 * workers share it through a queue group, so exactly one of them takes each try. A worker that is
 * shutting down answers `abandoned`, and a try that gets no answer within `requestTimeoutMs`
 * (a worker that died, or none running) is sent again, up to `maxAttempts` tries. A second try of a
 * check that did finish is harmless: the compactor finds the session below its threshold, and
 * snapshots are compare-and-swap.
 *
 * This file loads `@nestjs/microservices`: the module requires it only for `mode: 'nats'`, so the
 * core entry point never does. The module's teardown calls {@link close} after compaction has
 * drained.
 */
export class NatsCompactionRunner implements CompactionRunner {
  private readonly client: CompactionClientProxy;
  private readonly ownsClient: boolean;

  constructor(
    private readonly config: NatsCompactionRunnerSettings,
    private readonly logger: CompactionLogger = consoleCompactionLogger,
  ) {
    this.ownsClient = config.client === null;
    this.client =
      config.client ??
      ClientProxyFactory.create({
        transport: Transport.NATS,
        options: { servers: config.servers ?? [] },
      });
  }

  async run(request: CompactionRequest, signal: AbortSignal): Promise<CompactionResult> {
    let lastProblem = '';
    for (let attempt = 1; attempt <= this.config.maxAttempts; attempt++) {
      if (attempt > 1) await abortableDelay(backoffMs(attempt), signal);
      signal.throwIfAborted();
      let reply: CompactionWorkerReply;
      try {
        reply = await this.request(request, signal);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        lastProblem = error instanceof Error ? error.message : String(error);
        this.logger.warn(
          `compaction check of "${request.sessionId}" (try ${attempt}): ${lastProblem}`,
        );
        continue;
      }
      if (reply.status === 'done') return reply.result;
      if (reply.status === 'failed')
        throw new CompactionWorkerError(request.sessionId, reply.error);
      lastProblem = `a worker abandoned it (${reply.reason})`;
    }
    throw new CompactionUnansweredError(
      `compaction check of session "${request.sessionId}" got no answer from a worker on NATS subject ` +
        `"${this.config.subject}" in ${this.config.maxAttempts} tries (last: ${lastProblem}); is apps/worker running?`,
    );
  }

  /** Closes the NATS client the runner opened itself (never one passed in as `nats.client`). */
  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private request(request: CompactionRequest, signal: AbortSignal): Promise<CompactionWorkerReply> {
    return new Promise<CompactionWorkerReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no answer within ${this.config.requestTimeoutMs} ms`));
      }, this.config.requestTimeoutMs);
      timer.unref();
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      let subscription: Subscription | null = null;
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        subscription?.unsubscribe();
      };
      const active = this.client
        .send<CompactionWorkerReply, CompactionRequest>(this.config.subject, request)
        .subscribe({
          next: (reply) => {
            finish();
            resolve(reply);
          },
          error: (error: unknown) => {
            finish();
            reject(toError(error));
          },
          complete: () => {
            finish();
            reject(new Error('the worker answered nothing'));
          },
        });
      if (settled) active.unsubscribe();
      else subscription = active;
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 2));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Nest hands transport errors over as plain objects or strings. */
function toError(error: unknown): Error {
  if (error instanceof Error) return error;
  if (typeof error === 'object' && error !== null && 'message' in error)
    return new Error(String(error.message));
  return new Error(typeof error === 'string' ? error : JSON.stringify(error));
}
