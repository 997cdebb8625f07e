/**
 * The Docker and Kubernetes files cannot run here, so this checks what can drift: they parse, the
 * image is multi-stage, non-root and installs production dependencies only, compose runs
 * postgres, nats with JetStream, api and worker, the probes point at the server's health routes,
 * and every environment variable they set is one the server reads.
 */
import { PATH_METADATA } from '@nestjs/common/constants';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { API_ENV_VARS } from '../src/config/api-config';
import { HealthController } from '../src/health/health.controller';

const DOCKER_DIR = join(__dirname, '..', '..', '..', 'docker');
const KNOWN_VARS = new Set<string>(API_ENV_VARS);
/** Variables of the images themselves, not of the server. */
const RUNTIME_VARS = new Set(['NODE_ENV']);

function routeOf(method: keyof HealthController): string {
  const base = Reflect.getMetadata(PATH_METADATA, HealthController) as string;
  const path = Reflect.getMetadata(PATH_METADATA, HealthController.prototype[method]) as string;
  return `/${base}/${path}`;
}

type Manifest = {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: any;
};

function manifests(): Manifest[] {
  const dir = join(DOCKER_DIR, 'k8s');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
        expect(doc.errors).toEqual([]);
        return doc.toJS() as Manifest;
      }),
    );
}

describe('docker/', () => {
  it('has a multi-stage, non-root Dockerfile installing production dependencies only', () => {
    const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages[stages.length - 1]!;
    expect(runtime).toMatch(/^USER (?!root)\S+/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/COPY --from=deps/);
    expect(runtime).toMatch(/CMD \["node", "dist\/apps\/api\/src\/main\.js"\]/);
    for (const [, name] of runtime.matchAll(/^ENV ((?:.|\\\n)+)$/gm)) {
      for (const [, key] of name!.matchAll(/([A-Z_]+)=/g))
        expect(KNOWN_VARS.has(key!) || RUNTIME_VARS.has(key!)).toBe(true);
    }
  });

  it("has a compose file with postgres, nats (JetStream), api and worker on the server's variables", () => {
    const compose = parse(readFileSync(join(DOCKER_DIR, 'compose.yaml'), 'utf8'), {
      merge: true,
    }) as {
      services: Record<
        string,
        { command?: string[]; environment?: Record<string, string>; image?: string }
      >;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'nats', 'postgres', 'worker']);
    expect(compose.services.nats!.command).toContain('-js');
    for (const name of ['api', 'worker']) {
      const env = compose.services[name]!.environment ?? {};
      expect(Object.keys(env).length).toBeGreaterThan(0);
      for (const key of Object.keys(env))
        expect([name, key, KNOWN_VARS.has(key)]).toEqual([name, key, true]);
      expect(env.MEMORY_BACKEND).toBe('postgres');
      expect(env.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(env.NATS_URL).toBe('nats://nats:4222');
    }
  });

  it('has Kubernetes manifests whose probes hit the health routes and whose variables the server reads', () => {
    const all = manifests();
    const envNames = all
      .filter((m) => m.kind === 'ConfigMap' || m.kind === 'Secret')
      .flatMap((m) => Object.keys({ ...m.data, ...m.stringData }));
    const api = all.find((m) => m.kind === 'Deployment' && m.metadata.name === 'agent-memory-api');
    expect(api).toBeDefined();
    const container = api!.spec.template.spec.containers[0];
    envNames.push(...(container.env as { name: string }[]).map((e) => e.name));
    for (const name of envNames) expect([name, KNOWN_VARS.has(name)]).toEqual([name, true]);

    expect(container.livenessProbe.httpGet.path).toBe(routeOf('live'));
    expect(container.readinessProbe.httpGet.path).toBe(routeOf('ready'));
    const port = (container.ports as { name: string; containerPort: number }[]).find(
      (p) => p.name === container.readinessProbe.httpGet.port,
    );
    const portVar = (container.env as { name: string; value: string }[]).find(
      (e) => e.name === 'PORT',
    );
    expect(String(port?.containerPort)).toBe(portVar?.value);
    expect(api!.spec.template.spec.securityContext.runAsNonRoot).toBe(true);

    const worker = all.find(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'agent-memory-worker',
    );
    expect(worker?.spec.template.spec.containers[0].command).toEqual([
      'node',
      'dist/apps/worker/src/main.js',
    ]);
    const service = all.find((m) => m.kind === 'Service');
    expect(service?.spec.selector).toEqual(api!.spec.selector.matchLabels);
  });
});
