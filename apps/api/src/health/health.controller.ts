import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { ShutdownDrainService } from '../lifecycle/shutdown-drain.service';
import { MemoryHealthIndicator } from '@agent-memory/memory/health';

/** Kubernetes probes (no token): liveness is the process, readiness the backend and shutdown state. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly memory: MemoryHealthIndicator,
    private readonly shutdown: ShutdownDrainService,
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** 503 when the backend does not answer its check, and from the start of shutdown on. */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => {
        const session = this.indicators.check('server');
        return this.shutdown.shuttingDown
          ? session.down({ message: 'shutting down' })
          : session.up();
      },
      () => this.memory.isHealthy('memory'),
    ]);
  }
}
