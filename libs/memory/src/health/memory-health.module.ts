import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type InjectionToken,
  type ModuleMetadata,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  HealthIndicatorService,
  TerminusModule,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import type { MemoryBackend } from '../core/backend.interface';
import {
  DEFAULT_MEMORY_NAME,
  getMemoryInstanceTokens,
  isDefaultMemoryName,
  MEMORY_HEALTH_INSTANCE,
  memoryBackendLookupToken,
} from '../nest/memory.injection';
import type { MemoryHealthOptions } from './memory.health';
import { readinessResult } from './readiness-result';

/**
 * Probes `backend` with `checkMemoryReadiness` (the same recipe for every kind: PostgreSQL
 * reachable and migrated, NATS connected with its bucket bound, JSON files writable) and answers
 * as a Terminus result under `key`. Never throws.
 */
export function probeMemoryBackend<const Key extends string>(
  indicators: HealthIndicatorService,
  backend: MemoryBackend,
  key: Key,
  opts: MemoryHealthOptions = {},
): Promise<HealthIndicatorResult<Key>> {
  return readinessResult(indicators, backend, key, opts);
}

/**
 * The health indicator of one memory instance, right for its backend's kind (see
 * {@link probeMemoryBackend}); what `MemoryHealthModule.forFeature()` provides. Inject it in your
 * own `HealthController` (`@InjectMemoryHealth(name)` for a named instance).
 */
@Injectable()
export class MemoryBackendHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
    @Inject(MEMORY_HEALTH_INSTANCE) private readonly instance: string,
  ) {}

  /** Probes the instance's backend; the result's key is `key` (default `memory`). Never throws. */
  async isHealthy<const Key extends string = 'memory'>(
    key: Key = 'memory' as Key,
    opts: MemoryHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    let backend: MemoryBackend;
    try {
      backend = this.moduleRef.get<MemoryBackend>(memoryBackendLookupToken(this.instance), {
        strict: false,
      });
    } catch {
      return this.indicators.check(key).down({
        message: `no MemoryModule instance named "${this.instance}" in this app`,
      });
    }
    return probeMemoryBackend(this.indicators, backend, key, opts);
  }
}

/** The token of {@link MemoryBackendHealthIndicator} for the memory instance `name`. */
export function getMemoryHealthToken(name?: string): InjectionToken {
  return isDefaultMemoryName(name)
    ? MemoryBackendHealthIndicator
    : getMemoryInstanceTokens(name).health;
}

/** Injects the {@link MemoryBackendHealthIndicator} of the memory instance `name`. */
export function InjectMemoryHealth(name?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getMemoryHealthToken(name));
}

/** Options of `MemoryHealthModule.forFeature`. */
export interface MemoryHealthModuleOptions extends Pick<ModuleMetadata, 'imports'> {
  /** The memory instance to probe (`MemoryModule.forRoot({ name })`); the default one without. */
  name?: string;
}

/**
 * Health in one import: `imports: [MemoryModule.forRoot(…), MemoryHealthModule.forFeature()]`,
 * then a `HealthController` that injects `HealthCheckService` (Terminus, re-exported here) and
 * {@link MemoryBackendHealthIndicator}:
 *
 * ```ts
 * @Get('ready') @HealthCheck()
 * ready() { return this.health.check([() => this.memory.isHealthy('memory')]); }
 * ```
 *
 * The indicator fits the configured backend (PostgreSQL: database and tables; NATS: connection and
 * bucket; others: `backend.check()`), and finds its instance anywhere in the app, global or not.
 * Call `forFeature` once per named instance you probe.
 */
@Module({})
export class MemoryHealthModule {
  /** The indicator of the memory instance `name` (default instance without), and Terminus. */
  static forFeature(options: MemoryHealthModuleOptions = {}): DynamicModule {
    const token = getMemoryHealthToken(options.name);
    return {
      module: MemoryHealthModule,
      imports: [TerminusModule, ...(options.imports ?? [])],
      providers: [
        { provide: MEMORY_HEALTH_INSTANCE, useValue: options.name ?? DEFAULT_MEMORY_NAME },
        { provide: token, useClass: MemoryBackendHealthIndicator },
      ],
      exports: [token, TerminusModule],
    };
  }
}
