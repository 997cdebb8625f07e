import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  MEMORY_BACKEND,
  RetentionScheduler,
  RetentionSweeper,
  type MemoryBackend,
} from '@agent-memory/memory';
import type { RetentionSweepView, RetentionView } from '@agent-memory/api-contract';
import type { ApiConfig } from '../config/api-config';
import { API_CONFIG } from '../config/api-config.module';
import { ApiHttpError } from '../errors/api-http.error';
import { drivenStore } from '../memory-store/memory-store';
import { MemoryMetrics } from '../metrics/memory-metrics';

/**
 * Retention in the admin server (docs/operations.md#retention): the configured policy applied by
 * a {@link RetentionSweeper} on the memory backend, periodically (every replica schedules sweeps;
 * the lease in the store's lease record lets one work at a time) and on demand
 * (`POST /api/retention/sweep`). Expired sessions are counted in
 * `agent_memory_sessions_expired_total{action}`.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private sweeper: RetentionSweeper | null = null;
  private scheduler: RetentionScheduler | null = null;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(MEMORY_BACKEND) private readonly backend: MemoryBackend,
    private readonly metrics: MemoryMetrics,
  ) {}

  /** Builds the sweeper on the backend and its store's leases, then schedules the first sweep. */
  async onApplicationBootstrap(): Promise<void> {
    const retention = this.config.retention;
    if (!retention) return;
    const { driver, store } = drivenStore(this.backend);
    this.sweeper = new RetentionSweeper(this.backend, {
      policy: retention.policy,
      leases: await driver.leaseStore(store),
      leaseMs: this.config.compactionJobLeaseMs,
      onExpired: (_sessionId, action) => this.metrics.sessionExpired(action),
    });
    this.scheduler = new RetentionScheduler(this.sweeper, {
      intervalMs: retention.sweepIntervalMs,
      onSwept: (result) =>
        this.logger.log(`retention sweep: ${result.expired.length} session(s) ${result.action}`),
      onError: (error) =>
        this.logger.warn(
          `retention sweep failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
    });
    this.scheduler.start();
  }

  /** Stops the periodic sweep (a running one stops between two sessions) before the backend closes. */
  async onModuleDestroy(): Promise<void> {
    await this.scheduler?.stop();
  }

  /** The policy as configured and when this replica sweeps next. */
  view(): RetentionView {
    const retention = this.config.retention;
    if (!retention || !this.sweeper)
      return { policy: null, sweepIntervalMs: null, nextSweepAt: null };
    const next = this.scheduler?.nextSweepAt ?? null;
    return {
      policy: {
        maxAge: retention.policy.maxAge === undefined ? null : String(retention.policy.maxAge),
        maxIdle: retention.policy.maxIdle === undefined ? null : String(retention.policy.maxIdle),
        maxAgeMs: this.sweeper.policy.maxAgeMs,
        maxIdleMs: this.sweeper.policy.maxIdleMs,
        action: this.sweeper.policy.action,
      },
      sweepIntervalMs: retention.sweepIntervalMs,
      nextSweepAt: next === null ? null : new Date(next).toISOString(),
    };
  }

  /**
   * One sweep now under the configured policy.
   * @throws ApiHttpError 409 `RETENTION_NOT_CONFIGURED` without a policy, 409
   * `RETENTION_SWEEP_BUSY` while another replica (or the periodic sweep) is sweeping.
   */
  async sweep(opts: { dryRun: boolean }): Promise<RetentionSweepView> {
    if (!this.sweeper) {
      throw new ApiHttpError(
        409,
        'RETENTION_NOT_CONFIGURED',
        'no retention policy is configured: set MEMORY_RETENTION_MAX_IDLE or MEMORY_RETENTION_MAX_AGE (durations such as 30d) and restart',
      );
    }
    const result = await this.sweeper.sweep({ dryRun: opts.dryRun });
    if (!result.ran) {
      throw new ApiHttpError(
        409,
        'RETENTION_SWEEP_BUSY',
        'another sweep is running (on this replica or another); try again when it ends',
      );
    }
    return { expired: result.expired, action: result.action, dryRun: result.dryRun };
  }
}
