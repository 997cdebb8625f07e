/**
 * What the deploy-file specs (`deploy-files.spec.ts`, `deploy-kubernetes.spec.ts`) share: where
 * the files are, the variables the server and its images read, the health routes, and the
 * Kubernetes manifests parsed.
 */
import { PATH_METADATA } from '@nestjs/common/constants';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { API_ENV_VARS } from '../../src/config/api-config';
import { HealthController } from '../../src/health/health.controller';

export const DOCKER_DIR = join(__dirname, '..', '..', '..', '..', 'docker');
/** The variables the server reads. */
export const KNOWN_VARS = new Set<string>(API_ENV_VARS);
/** Variables only the worker reads (`apps/worker/src/main.ts`). */
export const WORKER_VARS = new Set(['WORKER_HEARTBEAT_FILE']);
/** Variables of the images themselves, not of the server. */
export const RUNTIME_VARS = new Set(['NODE_ENV']);

/** The path of a `HealthController` route, such as `/health/ready`. */
export function routeOf(method: keyof HealthController): string {
  const base = Reflect.getMetadata(PATH_METADATA, HealthController) as string;
  const path = Reflect.getMetadata(PATH_METADATA, HealthController.prototype[method]) as string;
  return `/${base}/${path}`;
}

/** One Kubernetes object, as far as the specs read it. */
export type Manifest = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, read loosely by the specs
  spec?: any;
};

/** Every object of the `.yaml` files in `dir` (default `docker/k8s`); each must parse cleanly. */
export function manifests(dir = join(DOCKER_DIR, 'k8s')): Manifest[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
        expect(doc.errors).toEqual([]);
        return doc.toJS() as Manifest;
      }),
    );
}
