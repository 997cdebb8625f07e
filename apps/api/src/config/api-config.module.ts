import { DynamicModule } from '@nestjs/common';
import { ConfigModule, getConfigToken, registerAs } from '@nestjs/config';
import type { ApiConfig } from './api-config';

/** Injection token of the validated {@link ApiConfig} (`@Inject(API_CONFIG)`). */
export const API_CONFIG = getConfigToken('api');

/**
 * `@nestjs/config` holding the already validated settings under the `api` namespace. The
 * environment is parsed once, before the module graph is built, so a bad variable stops the start
 * with every problem listed rather than failing inside a provider.
 */
export function apiConfigModule(config: ApiConfig): Promise<DynamicModule> {
  return ConfigModule.forRoot({
    isGlobal: true,
    ignoreEnvFile: true,
    skipProcessEnv: true,
    validatePredefined: false,
    load: [registerAs('api', () => config)],
  });
}
