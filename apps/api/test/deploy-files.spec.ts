/**
 * The Docker files cannot run here, so this checks what can drift: they parse, the image is
 * multi-stage, non-root, installs production dependencies only and builds on a supported Node LTS,
 * compose runs postgres, nats with JetStream, api and worker on variables the server reads, and
 * the monitoring profile and its dashboard hold together. The Kubernetes manifests are checked in
 * `deploy-kubernetes.spec.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DOCKER_DIR, KNOWN_VARS, RUNTIME_VARS, WORKER_VARS } from './support/deploy-files';

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

  it('builds on a supported Node LTS (22 or 24) pinned by digest, every stage from the same base', () => {
    const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:(22|24)[-.\w]*@sha256:[0-9a-f]{64}$/m);
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from).toBe('${NODE_IMAGE}');
  });
});
