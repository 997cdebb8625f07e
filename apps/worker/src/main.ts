/**
 * The compaction worker (`node -r @swc-node/register apps/worker/src/main.ts`): a Nest
 * microservice on NATS that answers the compaction checks a `CompactionService` in
 * `mode: 'nats'` publishes, in the queue group `COMPACTION_NATS_QUEUE`, over the same backend as
 * the admin server (same environment variables: see `libs/memory-config/src/memory-config.ts`).
 * SIGTERM / SIGINT: stop taking checks, let running ones finish (or abort them after the grace
 * period and hand them back), close the backend, exit.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NatsConnection } from 'nats';
import {
  checkMemoryReadiness,
  CompactionService,
  MEMORY_BACKEND,
  type MemoryBackend,
} from '@agent-memory/memory';
import { ConfigValidationError, parseMemoryConfig } from '@agent-memory/memory-config';
import { CompactionNatsServer } from './compaction-nats.server';
import { startLivenessHeartbeat } from './liveness-heartbeat';
import { workerMetricsAddress } from './worker-metrics.config';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const logger = new Logger('CompactionWorker');
  const config = parseMemoryConfig(process.env, { requireNats: true });
  // METRICS_PORT: Prometheus metrics on a port of their own (no token), as the admin server's.
  const metricsAddress = workerMetricsAddress(process.env);
  const server = new CompactionNatsServer({
    servers: [config.natsUrl!],
    queue: config.compactionQueue,
    name: `agent-memory-worker-${process.pid}`,
  });
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    WorkerModule.forRoot(config, { address: metricsAddress }),
    {
      strategy: server,
    },
  );
  const compaction = app.get(CompactionService);
  server.beforeClose = () => compaction.shutdown();

  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal}: draining`);
    // Our own handler, not enableShutdownHooks: Nest's would run the module hooks (and close the
    // backend) before it stops the NATS subscriptions.
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  await app.listen();
  const backend = app.get<MemoryBackend>(MEMORY_BACKEND);
  let lastProblem: string | null = null;
  /** The backend's readiness, logged once per change (the reason names what is missing). */
  const backendReady = async (): Promise<boolean> => {
    const readiness = await checkMemoryReadiness(backend);
    const problem = readiness.ready ? null : (readiness.reason ?? 'not ready');
    if (problem !== lastProblem) {
      if (problem) logger.warn(`the ${backend.kind} memory backend is not ready: ${problem}`);
      else if (lastProblem) logger.log(`the ${backend.kind} memory backend is ready again`);
      lastProblem = problem;
    }
    return problem === null;
  };
  // WORKER_HEARTBEAT_FILE: touched while the NATS connection is open and the backend is ready
  // (the startup and liveness probes' signal).
  const heartbeatFile = process.env.WORKER_HEARTBEAT_FILE;
  if (heartbeatFile) {
    startLivenessHeartbeat(heartbeatFile, async () => {
      let connected: boolean;
      try {
        const connection = server.unwrap<NatsConnection | null>();
        connected = connection !== null && !connection.isClosed() && !closing;
      } catch {
        connected = false; // not connected (yet, or any more)
      }
      return connected && (await backendReady());
    });
  } else {
    await backendReady();
  }
  logger.log(
    `worker ready: subject "${config.compactionSubject}", queue "${config.compactionQueue}", ` +
      `backend ${config.backend}, compacting at ${config.compactAtTokens} tokens`,
  );
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
