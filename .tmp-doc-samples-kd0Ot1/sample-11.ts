import { jsonFileBackend, MemoryModule } from '@agent-memory/memory';
import { InjectMemoryHealth } from '@agent-memory/memory/health';
import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { MemoryBackendHealthIndicator, MemoryHealthModule } from '@agent-memory/memory/health';

@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly memory: MemoryBackendHealthIndicator, // @InjectMemoryHealth('archive') for a named one
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.memory.isHealthy('memory')]);
  }
}

@Module({
  imports: [
    MemoryModule.forRoot({ backend: () => jsonFileBackend({ dir: './data' }) }),
    MemoryHealthModule.forFeature(),
  ],
  controllers: [HealthController],
})
class AppModule {}

export {};
