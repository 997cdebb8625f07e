/**
 * The Docker and Kubernetes files cannot run here, so this checks what can drift: they parse, the
 * image is multi-stage, non-root and installs production dependencies only, compose runs
 * postgres, nats with JetStream, api and worker, the probes point at the server's health routes,
 * and every environment variable they set is one the server reads.
 */
import { PATH_METADATA } from '@nestjs/common/constants';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseMemoryConfig } from '@agent-memory/memory-config';
import { API_ENV_VARS, parseApiConfig } from '../src/config/api-config';
import { HealthController } from '../src/health/health.controller';

const DOCKER_DIR = join(__dirname, '..', '..', '..', 'docker');
const KNOWN_VARS = new Set<string>(API_ENV_VARS);
/** Variables only the worker reads (`apps/worker/src/main.ts`). */
const WORKER_VARS = new Set(['WORKER_HEARTBEAT_FILE']);
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

function manifests(dir = join(DOCKER_DIR, 'k8s')): Manifest[] {
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

  it("builds with the repository's build script, which builds the dashboard and ships it where the server looks for it", () => {
    const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const build = stages.find((stage) => /AS build\b/.test(stage))!;
    // One build for the image and for a checkout: `npm run build`, not steps copied by hand.
    expect(build).toMatch(/^RUN npm run build(?![:\w-])/m);
    expect(build).not.toMatch(/build:admin|\bcp -r|\bfind /);
    const { scripts } = JSON.parse(
      readFileSync(join(DOCKER_DIR, '..', 'package.json'), 'utf8'),
    ) as { scripts: Record<string, string> };
    for (const step of [
      'nest build memory',
      'nest build memory-config',
      'nest build api',
      'nest build worker',
      'scripts/build-admin.mjs',
      'scripts/copy-admin-dist.mjs',
    ]) {
      expect(scripts.build).toContain(step);
    }
    // Everything the build script reads is copied into the build stage before it runs.
    for (const source of ['libs', 'apps', 'scripts', 'tsconfig.json', 'nest-cli.json']) {
      expect(build).toMatch(new RegExp(`^COPY .*\\b${source.replace('.', '\\.')}\\b`, 'm'));
    }
    // The runtime copies dist/ from the build stage: dist/apps/admin/dist is ADMIN_DIST_DIR
    // (dist/apps/api/src/../../admin/dist) once compiled.
    expect(stages[stages.length - 1]).toMatch(/COPY --from=build \S+ \/app\/dist \.\/dist/);
  });

  it('ships every workspace library the built apps require: linked by npm ci, its build copied to the runtime', () => {
    const root = join(DOCKER_DIR, '..');
    const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
    const { workspaces } = readJson('package.json') as { workspaces: string[] };
    const folderOf = new Map(
      workspaces
        .filter((folder) => !folder.includes('*'))
        .map((folder) => [(readJson(`${folder}/package.json`) as { name: string }).name, folder]),
    );
    const required = new Set(
      ['apps/api', 'apps/worker'].flatMap((app) =>
        Object.keys((readJson(`${app}/package.json`) as { dependencies: object }).dependencies),
      ),
    );
    const libraries = [...folderOf.keys()]
      .filter((name) => required.has(name))
      .map((name) => folderOf.get(name));
    expect(libraries).toEqual(['libs/memory', 'libs/memory-config']);

    const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const runtime = stages[stages.length - 1]!;
    for (const folder of libraries) {
      // Both installs see the library's package.json before `npm ci`, so they link it.
      const installs = stages.filter((stage) => /^RUN npm ci\b/m.test(stage));
      expect(installs.length).toBe(2);
      for (const stage of installs) {
        const install = stage.slice(0, stage.search(/^RUN npm ci\b/m));
        expect([folder, install]).toEqual([
          folder,
          expect.stringContaining(`COPY ${folder}/package.json ./${folder}/`),
        ]);
      }
      // The link resolves to package.json's `main`, in the library's own dist/.
      for (const file of ['package.json', 'dist'])
        expect(runtime).toContain(
          `COPY --from=build --chown=root:root /app/${folder}/${file} ./${folder}/${file}`,
        );
      const { main } = readJson(`${folder}/package.json`) as { main: string };
      expect(main).toMatch(/^\.\/dist\//);
    }
  });

  it("has a compose file with postgres, nats (JetStream), api and worker on the server's variables", () => {
    const compose = parse(readFileSync(join(DOCKER_DIR, 'compose.yaml'), 'utf8'), {
      merge: true,
    }) as {
      services: Record<
        string,
        {
          command?: string[];
          environment?: Record<string, string>;
          image?: string;
          profiles?: string[];
        }
      >;
    };
    const always = Object.keys(compose.services).filter(
      (name) => !compose.services[name]!.profiles,
    );
    expect(always.sort()).toEqual(['api', 'nats', 'postgres', 'worker']);
    expect(compose.services.nats!.command).toContain('-js');
    for (const name of ['api', 'worker']) {
      const env = compose.services[name]!.environment ?? {};
      expect(Object.keys(env).length).toBeGreaterThan(0);
      for (const key of Object.keys(env))
        expect([
          name,
          key,
          KNOWN_VARS.has(key) || (name === 'worker' && WORKER_VARS.has(key)),
        ]).toEqual([name, key, true]);
      expect(env.MEMORY_BACKEND).toBe('postgres');
      expect(env.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(env.NATS_URL).toBe('nats://nats:4222');
    }
  });

  it('has a monitoring profile: Prometheus scraping the metrics port, Grafana with the dashboard', () => {
    type Service = {
      environment?: Record<string, string>;
      profiles?: string[];
      volumes?: string[];
    };
    const compose = parse(readFileSync(join(DOCKER_DIR, 'compose.yaml'), 'utf8'), {
      merge: true,
    }) as { services: Record<string, Service> };
    const monitoring = Object.entries(compose.services)
      .filter(([, service]) => service.profiles?.includes('monitoring'))
      .map(([name]) => name);
    expect(monitoring.sort()).toEqual(['grafana', 'prometheus']);
    // Every mounted folder of the profile exists next to the compose file.
    for (const name of monitoring) {
      for (const volume of compose.services[name]!.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.'))
          expect([name, existsSync(join(DOCKER_DIR, source))]).toEqual([name, true]);
      }
    }
    const prometheus = parse(
      readFileSync(join(DOCKER_DIR, 'prometheus', 'prometheus.yml'), 'utf8'),
    ) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    // Prometheus scrapes the metrics port of the admin server and of the compaction worker, each
    // as the service sets it (the worker serves it on every interface, as the API does).
    const targets = Object.fromEntries(
      prometheus.scrape_configs.map((job) => [
        job.job_name,
        job.static_configs.flatMap((config) => config.targets),
      ]),
    );
    const api = compose.services.api!.environment!;
    const worker = compose.services.worker!.environment!;
    expect(worker.METRICS_PORT).toMatch(/^\d+$/);
    expect(worker.HOST).toBe('0.0.0.0');
    expect(targets).toEqual({
      'agent-memory': [`api:${api.METRICS_PORT}`],
      'agent-memory-worker': [`worker:${worker.METRICS_PORT}`],
    });
    const datasources = parse(
      readFileSync(
        join(DOCKER_DIR, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'),
        'utf8',
      ),
    ) as { datasources: { type: string }[] };
    expect(datasources.datasources.map((source) => source.type)).toEqual(['prometheus']);
  });

  it('has a Grafana dashboard that asks for its data source on import and charts retention, audit and recall', () => {
    type Panel = {
      type: string;
      title: string;
      datasource?: { uid: string };
      targets?: { expr: string; datasource?: { uid: string } }[];
    };
    const dashboard = JSON.parse(
      readFileSync(join(DOCKER_DIR, 'grafana', 'dashboards', 'agent-memory.json'), 'utf8'),
    ) as {
      __inputs: { name: string; type: string; pluginId: string }[];
      templating: { list: { name: string; type: string; datasource?: { uid: string } }[] };
      panels: Panel[];
    };
    // An import asks for a Prometheus data source and fills in `${DS_PROMETHEUS}` with it.
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({
        name: 'DS_PROMETHEUS',
        type: 'datasource',
        pluginId: 'prometheus',
      }),
    ]);
    // Provisioning from a file fills in no input: a data-source variable of the same name does.
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource' }),
    );
    const queried = dashboard.panels.filter((panel) => panel.type !== 'row');
    const uids = new Set([
      ...queried.flatMap((panel) => [
        panel.datasource?.uid,
        ...(panel.targets ?? []).map((target) => target.datasource?.uid),
      ]),
      ...dashboard.templating.list
        .filter((variable) => variable.type === 'query')
        .map((variable) => variable.datasource?.uid),
    ]);
    expect([...uids]).toEqual(['${DS_PROMETHEUS}']);
    // No data source named by uid anywhere else in the file.
    const text = JSON.stringify(dashboard);
    expect(text.match(/"uid":"[^"]*"/g)?.filter((uid) => !uid.includes('DS_PROMETHEUS'))).toEqual([
      '"uid":"agent-memory"',
    ]);

    const charted = (metric: string) =>
      queried
        .filter((panel) => (panel.targets ?? []).some((target) => target.expr.includes(metric)))
        .map((panel) => panel.title);
    expect(charted('agent_memory_sessions_expired_total')).toEqual([
      'Sessions expired by retention',
    ]);
    expect(charted('agent_memory_audit_failures_total')).toEqual(['Audit entries not written']);
    expect(charted('agent_memory_recall_failures_total')).toEqual(['Recall failures']);
  });

  it('has Kubernetes manifests whose probes hit the health routes and whose variables the server reads', () => {
    const all = [...manifests(), ...manifests(join(DOCKER_DIR, 'k8s', 'examples'))];
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

  describe('Kubernetes manifests that survive a review', () => {
    const all = manifests();
    const byKind = (kind: string) => all.filter((m) => m.kind === kind);
    const deployment = (name: string) =>
      all.find((m) => m.kind === 'Deployment' && m.metadata.name === `agent-memory-${name}`)!;
    const config = byKind('ConfigMap')[0]!.data!;
    const envOf = (container: any): Record<string, string> => ({
      ...config,
      ...Object.fromEntries(
        ((container.env ?? []) as { name: string; value: string }[]).map((e) => [e.name, e.value]),
      ),
    });
    const podSpecs = () => [
      ...byKind('Deployment').map((m) => m.spec.template.spec),
      ...byKind('Job').map((m) => m.spec.template.spec),
    ];

    it('applies no Secret: the example lives apart, and the server refuses its token', () => {
      expect(byKind('Secret')).toEqual([]);
      const kustomization = byKind('Kustomization')[0]!;
      const resources = (kustomization as any).resources as string[];
      expect(resources.some((file) => file.includes('secret'))).toBe(false);
      const example = manifests(join(DOCKER_DIR, 'k8s', 'examples')).find(
        (m) => m.kind === 'Secret',
      )!;
      expect(() => parseApiConfig({ ...example.stringData })).toThrow(/example value/);
    });

    it('lists every manifest in the kustomization, and sets every image through it', () => {
      const kustomization = byKind('Kustomization')[0] as any;
      const files = readdirSync(join(DOCKER_DIR, 'k8s')).filter(
        (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
      );
      expect([...kustomization.resources].sort()).toEqual(files.sort());
      const imageNames = (kustomization.images as { name: string }[]).map((i) => i.name);
      for (const spec of podSpecs()) {
        for (const container of spec.containers) {
          // No tag in the manifests: the kustomization's `images` sets the tag or digest.
          expect(imageNames).toContain(container.image);
          expect(container.image).not.toMatch(/[:@]/);
        }
      }
    });

    it('locks every pod down: seccomp RuntimeDefault, no service account token, non-root, read-only', () => {
      expect(podSpecs().length).toBe(3);
      for (const spec of podSpecs()) {
        expect(spec.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
        expect(spec.securityContext.runAsNonRoot).toBe(true);
        expect(spec.automountServiceAccountToken).toBe(false);
        for (const container of spec.containers) {
          expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
          expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
        }
      }
    });

    it('fits each shutdown budget in terminationGracePeriodSeconds', () => {
      const CLOSE_BUDGET_MS = 5000;
      const api = deployment('api').spec.template.spec;
      const apiEnv = envOf(api.containers[0]);
      const apiMs =
        Number(apiEnv.SHUTDOWN_DELAY_MS) +
        Number(apiEnv.SHUTDOWN_DRAIN_MS) +
        Number(apiEnv.COMPACTION_SHUTDOWN_GRACE_MS) +
        CLOSE_BUDGET_MS;
      expect(apiMs).toBeGreaterThan(CLOSE_BUDGET_MS);
      expect(apiMs).toBeLessThanOrEqual(api.terminationGracePeriodSeconds * 1000);
      const worker = deployment('worker').spec.template.spec;
      const workerMs =
        Number(envOf(worker.containers[0]).COMPACTION_SHUTDOWN_GRACE_MS) + CLOSE_BUDGET_MS;
      expect(workerMs).toBeLessThanOrEqual(worker.terminationGracePeriodSeconds * 1000);
    });

    it('keeps pods spread and available: topology spread, PodDisruptionBudgets, tolerant readiness', () => {
      for (const name of ['api', 'worker']) {
        const d = deployment(name);
        const labels = d.spec.selector.matchLabels;
        const spread = d.spec.template.spec.topologySpreadConstraints as any[];
        expect(spread.length).toBeGreaterThan(0);
        for (const constraint of spread)
          expect(constraint.labelSelector.matchLabels).toEqual(labels);
        const budget = byKind('PodDisruptionBudget').find(
          (m) => JSON.stringify(m.spec.selector.matchLabels) === JSON.stringify(labels),
        );
        expect(budget?.spec.minAvailable).toBeGreaterThanOrEqual(1);
        expect(budget!.spec.minAvailable).toBeLessThan(d.spec.replicas);
      }
      const api = deployment('api').spec.template.spec.containers[0];
      expect(api.readinessProbe.failureThreshold).toBeGreaterThan(1);
    });

    it('probes the worker through the heartbeat file it writes', () => {
      const worker = deployment('worker').spec.template.spec;
      const container = worker.containers[0];
      const heartbeat = envOf(container).WORKER_HEARTBEAT_FILE;
      expect(heartbeat).toMatch(/^\//);
      expect(container.livenessProbe.exec.command.join(' ')).toContain('WORKER_HEARTBEAT_FILE');
      expect(container.livenessProbe.failureThreshold).toBeGreaterThan(1);
      // The root file system is read-only: the file's folder is a volume.
      const mount = (container.volumeMounts as { mountPath: string }[]).find((m) =>
        heartbeat.startsWith(`${m.mountPath}/`),
      );
      expect(mount).toBeDefined();
      expect(
        readFileSync(join(__dirname, '..', '..', 'worker', 'src', 'main.ts'), 'utf8'),
      ).toContain('process.env.WORKER_HEARTBEAT_FILE');
    });

    it("sets every server variable (but the secrets and the other backends') to a value the server accepts", () => {
      const secrets = manifests(join(DOCKER_DIR, 'k8s', 'examples')).find(
        (m) => m.kind === 'Secret',
      )!.stringData!;
      /** Variables of backends and modes other than the manifests' (postgres, NATS compaction). */
      const otherBackends = new Set([
        'MEMORY_DIR',
        'MEMORY_JSONFILE_MIN_FREE_MB',
        'MEMORY_SIMPLE_CAPACITY',
      ]);
      /** Variables with a default the manifests keep (subject and queue names of the worker's). */
      const defaulted = new Set(['COMPACTION_NATS_SUBJECT', 'COMPACTION_NATS_QUEUE']);
      /** Semantic recall stays off: its variables are refused without MEMORY_RECALL_EMBEDDER. */
      const recallOff = (name: string) => name.startsWith('MEMORY_RECALL_');
      /** Retention stays off (an operator chooses how long to keep conversations). */
      const retentionOff = (name: string) => name.startsWith('MEMORY_RETENTION_');
      const env = envOf(deployment('api').spec.template.spec.containers[0]);
      const missing = API_ENV_VARS.filter(
        (name) =>
          !(name in env) &&
          !(name in secrets) &&
          !otherBackends.has(name) &&
          !defaulted.has(name) &&
          !recallOff(name) &&
          !retentionOff(name),
      );
      expect(Object.keys(env).filter(recallOff)).toEqual([]);
      expect(missing).toEqual([]);
      const parsed = parseApiConfig({
        ...env,
        ...secrets,
        MEMORY_ADMIN_TOKEN: 'a-real-token-0123456789abcdef0123456789',
      });
      expect(parsed).toMatchObject({
        compactionJobTtlMs: 86_400_000,
        compactionJobLeaseMs: 30_000,
        authFailureLimit: 20,
        authFailureWindowMs: 60_000,
        logFormat: 'json',
        metricsPort: null,
      });
    });

    it('migrates in a Job, and runs the pods without DDL', () => {
      const job = byKind('Job')[0]!;
      const command = job.spec.template.spec.containers[0].command as string[];
      expect(command).toEqual(['node', 'dist/apps/api/src/migrate.js']);
      expect(existsSync(join(__dirname, '..', 'src', 'migrate.ts'))).toBe(true);
      expect(config.MEMORY_PG_ENSURE_SCHEMA).toBe('false');
      expect(
        parseMemoryConfig({ ...config, DATABASE_URL: 'postgres://x@db/y' }).store,
      ).toMatchObject({ ensureSchema: false });
    });

    it('builds on a supported Node LTS (22 or 24) pinned by digest, every stage from the same base', () => {
      const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:(22|24)[-.\w]*@sha256:[0-9a-f]{64}$/m);
      const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
      expect(froms.length).toBeGreaterThanOrEqual(2);
      for (const from of froms) expect(from).toBe('${NODE_IMAGE}');
    });
  });
});
