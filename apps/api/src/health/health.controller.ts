import { Controller, Get, Logger } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { ShutdownDrainService } from '../lifecycle/shutdown-drain.service';
import { MemoryHealthIndicator } from '@agent-memory/memory/health';

/**
 * Kubernetes probes (no token): liveness is the process, readiness the backend and shutdown state.
 * The probes are open, so a failed check names the dependency that is down (`memory`, with its
 * `kind`) but not why: the reason (hosts, ports, driver text) goes to the log, once per change.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Readiness');
  private lastProblem: string | null = null;

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
      () => this.memoryWithoutDetails(),
    ]);
  }

  private async memoryWithoutDetails(): Promise<HealthIndicatorResult<'memory'>> {
    const result = await this.memory.isHealthy('memory');
    const { status, kind, message } = result.memory as {
      status: 'up' | 'down';
      kind: string;
      message?: string;
    };
    const problem = status === 'down' ? (message ?? 'down') : null;
    if (problem !== this.lastProblem) {
      if (problem) {
        // The reason names hosts and ports: at debug level only.
        this.logger.warn(`the ${kind} memory backend is down`);
        this.logger.debug?.(`the ${kind} memory backend is down: ${problem}`);
      } else this.logger.log(`the ${kind} memory backend is up again`);
      this.lastProblem = problem;
    }
    const indicator = this.indicators.check('memory');
    return problem
      ? indicator.down({ kind, message: `the ${kind} memory backend does not answer` })
      : indicator.up({ kind });
  }
}
