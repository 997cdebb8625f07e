import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryMetrics } from './memory-metrics';

/** Where {@link MetricsPortServer} listens: `HOST` and `METRICS_PORT` of the process. */
export interface MetricsAddress {
  /** The interface to listen on. */
  host: string;
  /** The port (0: a free one); null serves nothing. */
  port: number | null;
}

/** Injection token of the {@link MetricsAddress} (the admin server's and the worker's modules provide it). */
export const METRICS_ADDRESS = Symbol('METRICS_ADDRESS');

/**
 * With a metrics port set: a plain HTTP server on `HOST`:`METRICS_PORT` that answers `GET
 * /metrics` (no token) and 404 to everything else. Opened at bootstrap, closed at shutdown. The
 * admin server and the compaction worker both run it over their {@link MemoryMetrics}.
 */
@Injectable()
export class MetricsPortServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | null = null;

  constructor(
    private readonly metrics: MemoryMetrics,
    @Inject(METRICS_ADDRESS) private readonly address: MetricsAddress,
  ) {}

  /** The port it listens on, or null when `METRICS_PORT` is unset. */
  get port(): number | null {
    return this.server ? (this.server.address() as AddressInfo).port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { host, port } = this.address;
    if (port === null) return;
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      this.metrics.render().then(
        (text) =>
          response
            .writeHead(200, {
              'content-type': this.metrics.contentType,
              'cache-control': 'no-store',
            })
            .end(text),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    this.logger.log(`metrics on ${host}:${this.port}/metrics`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
