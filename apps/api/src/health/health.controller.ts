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
import {
  checkMemoryReadiness,
  InjectMemoryBackend,
  type MemoryBackend,
} from '@agent-memory/memory';

/**
 * Kubernetes probes (no token): liveness is the process, readiness the backend (reachable and able
 * to serve, see `checkMemoryReadiness`) and shutdown state. The probes are open, so a failed check
 * names the dependency that is down (`memory`, with its `kind`) and what is missing from the
 * database (table and procedure names), but not why it does not answer: that reason (hosts, ports,
 * driver text) goes to the log, once per change.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Readiness');
  private lastProblem: string | null = null;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @InjectMemoryBackend() private readonly backend: MemoryBackend,
    private readonly shutdown: ShutdownDrainService,
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** 503 when the backend cannot serve (unreachable, not migrated), and from the start of shutdown on. */
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
    const { ready, kind, missing, reason } = await checkMemoryReadiness(this.backend);
    const problem = ready ? null : (reason ?? 'down');
    if (problem !== this.lastProblem) {
      if (problem) {
        // The reason may name hosts and ports: at debug level only.
        this.logger.warn(`the ${kind} memory backend is not ready`);
        this.logger.debug?.(`the ${kind} memory backend is not ready: ${problem}`);
      } else this.logger.log(`the ${kind} memory backend is ready again`);
      this.lastProblem = problem;
    }
    const indicator = this.indicators.check('memory');
    if (!problem) return indicator.up({ kind });
    if (missing.length > 0) {
      return indicator.down({
        kind,
        missing,
        message: `the ${kind} memory backend is not migrated (missing: ${missing.join(', ')})`,
      });
    }
    return indicator.down({ kind, message: `the ${kind} memory backend does not answer` });
  }
}
