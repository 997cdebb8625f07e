import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { MemoryMetrics } from './memory-metrics';

/**
 * `GET /metrics`: the Prometheus text exposition. It sits behind the admin token (the auth gate
 * covers `/metrics`); set `METRICS_PORT` to also serve it without a token on a port of its own,
 * for a scraper inside the cluster.
 */
@ApiExcludeController()
@ApiBearerAuth()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MemoryMetrics) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.contentType);
    response.send(await this.metrics.render());
  }
}
