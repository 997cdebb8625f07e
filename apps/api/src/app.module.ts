import { DynamicModule, Module, type Provider } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { auditLogFor } from './audit/audit-log.factory';
import { AuditController } from './audit/audit.controller';
import { AUDIT_LOG } from './audit/audit.injection';
import { AuditRecorder } from './audit/audit-recorder';
import { AdminTokenGuard } from './auth/admin-token.guard';
import { AdminTokens } from './auth/admin-tokens';
import { FailedAuthLimiter } from './auth/failed-auth.limiter';
import { RolesController } from './auth/roles.controller';
import { RouteRoleTable } from './auth/route-roles';
import { CompactionsController } from './compactions/compactions.controller';
import { CompactionJobsService } from './compactions/compaction-jobs.service';
import { LastCompactions } from './compactions/last-compactions';
import type { ApiConfig } from './config/api-config';
import { API_CONFIG, apiConfigModule } from './config/api-config.module';
import {
  MEMORY_BACKEND,
  MemoryModule,
  TokenCounter,
  type MemoryBackend,
} from '@agent-memory/memory';
import { DashboardStaticModule } from './dashboard/dashboard-static.module';
import { TransferController } from './transfer/transfer.controller';
import { ServerInfoController } from './dashboard/server-info.controller';
import { SessionViewsController } from './dashboard/session-views.controller';
import { SessionViewsService } from './dashboard/session-views.service';
import { ApiExceptionFilter } from './errors/api-exception.filter';
import { HealthController } from './health/health.controller';
import { apiMemoryOptions } from './memory-options';
import { MemoryMetrics } from './metrics/memory-metrics';
import { MetricsController } from './metrics/metrics.controller';
import {
  METRICS_ADDRESS,
  MetricsPortServer,
  type MetricsAddress,
} from './metrics/metrics-port.server';
import { ScrapeTimeMetrics } from './metrics/scrape-time-metrics';
import { ShutdownDrainService } from './lifecycle/shutdown-drain.service';
import { McpController } from './mcp/mcp.controller';
import { McpHttpService } from './mcp/mcp-http.service';
import { RecallController } from './recall/recall.controller';
import { RecallService } from './recall/recall.service';
import { RetentionController } from './retention/retention.controller';
import { RetentionService } from './retention/retention.service';
import { ResourcesController } from './resources/resources.controller';
import { ResourcesService } from './resources/resources.service';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsService } from './sessions/sessions.service';

/** Where the dashboard's build lands (`apps/admin/dist`); served at `/` only when it exists. */
export const ADMIN_DIST_DIR = join(__dirname, '..', '..', 'admin', 'dist');

export interface AppModuleOptions {
  config: ApiConfig;
  /** Every bearer token `/api` accepts, with its name and role. */
  tokens: AdminTokens;
  /** The dashboard's built files; default {@link ADMIN_DIST_DIR}. */
  adminDistDir?: string;
  /** The server's metrics (one registry per server). */
  metrics: MemoryMetrics;
}

/** The admin server: sessions and compactions under `/api`, probes under `/health`, the dashboard at `/`. */
@Module({})
export class AppModule {
  static async forRoot(options: AppModuleOptions): Promise<DynamicModule> {
    const adminDist = options.adminDistDir ?? ADMIN_DIST_DIR;
    const dashboard = existsSync(join(adminDist, 'index.html'))
      ? [DashboardStaticModule.forRoot(adminDist)]
      : [];
    const lastCompactions = new LastCompactions();
    const providers: Provider[] = [
      { provide: AdminTokens, useValue: options.tokens },
      RouteRoleTable,
      {
        provide: AUDIT_LOG,
        inject: [MEMORY_BACKEND, API_CONFIG],
        useFactory: (backend: MemoryBackend, config: ApiConfig) => auditLogFor(backend, config),
      },
      AuditRecorder,
      { provide: LastCompactions, useValue: lastCompactions },
      { provide: MemoryMetrics, useValue: options.metrics },
      {
        provide: METRICS_ADDRESS,
        inject: [API_CONFIG],
        useFactory: (config: ApiConfig): MetricsAddress => ({
          host: config.host,
          port: config.metricsPort,
        }),
      },
      MetricsPortServer,
      ScrapeTimeMetrics,
      {
        provide: FailedAuthLimiter,
        inject: [API_CONFIG],
        useFactory: (config: ApiConfig) =>
          new FailedAuthLimiter({
            limit: config.authFailureLimit,
            windowMs: config.authFailureWindowMs,
          }),
      },
      AdminTokenGuard,
      { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ShutdownDrainService,
      SessionsService,
      SessionViewsService,
      CompactionJobsService,
      RecallService,
      McpHttpService,
      RetentionService,
      ResourcesService,
      { provide: TokenCounter, useFactory: () => new TokenCounter() },
    ];
    return {
      module: AppModule,
      imports: [
        await apiConfigModule(options.config),
        TerminusModule,
        DiscoveryModule,
        MemoryModule.forRootAsync({
          inject: [API_CONFIG],
          useFactory: (config: ApiConfig) =>
            apiMemoryOptions(config, options.metrics, lastCompactions),
        }),
        ...dashboard,
      ],
      controllers: [
        SessionsController,
        SessionViewsController,
        ServerInfoController,
        RolesController,
        CompactionsController,
        RecallController,
        RetentionController,
        ResourcesController,
        HealthController,
        MetricsController,
        AuditController,
        TransferController,
        McpController,
      ],
      providers,
    };
  }
}
