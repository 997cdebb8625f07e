import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { API_CONFIG } from '../config/api-config.module';
import type { ApiConfig } from '../config/api-config';

/**
 * Graceful shutdown of the HTTP side. It lives in the root module, whose `onModuleDestroy` runs
 * before the memory module's, so on SIGTERM (or `app.close()`):
 * 1. readiness turns 503 (`shuttingDown`), for `SHUTDOWN_DELAY_MS` while new requests are still
 *    served (time for a load balancer to stop sending traffic);
 * 2. the server stops accepting connections and waits up to `SHUTDOWN_DRAIN_MS` for the requests
 *    in flight to finish, then closes what is left;
 * 3. then the memory module stops compaction and closes the backend.
 */
@Injectable()
export class ShutdownDrainService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Shutdown');
  private inFlight = 0;
  private drained: (() => void) | null = null;
  private closing = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  /** True once shutdown has begun. */
  get shuttingDown(): boolean {
    return this.closing;
  }

  onApplicationBootstrap(): void {
    this.server()?.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.inFlight += 1;
      if (this.closing && !res.headersSent) res.setHeader('Connection', 'close');
      res.once('close', () => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.drained?.();
      });
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    const server = this.server();
    if (!server?.listening) return;
    if (this.config.shutdownDelayMs > 0) await sleep(this.config.shutdownDelayMs);
    server.close();
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      this.logger.log(`waiting for ${this.inFlight} request(s) in flight`);
      const finished = await Promise.race([
        new Promise<boolean>((resolve) => (this.drained = () => resolve(true))),
        sleep(this.config.shutdownDrainMs).then(() => false),
      ]);
      if (!finished)
        this.logger.warn(
          `closing ${this.inFlight} request(s) still running after ${this.config.shutdownDrainMs} ms`,
        );
    }
    server.closeAllConnections();
  }

  private server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
