/**
 * The Kubernetes manifests (`docker/k8s`) cannot run here, so this checks what can drift: they
 * parse, their probes hit the server's health routes, every variable they set is one the server
 * reads and accepts, and they hold up in a review (no Secret applied, pods locked down and spread,
 * shutdown budgets that fit, migrations in a Job).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseMemoryConfig } from '@agent-memory/memory-config';
import { API_ENV_VARS, parseApiConfig } from '../src/config/api-config';
import { DOCKER_DIR, KNOWN_VARS, manifests, routeOf } from './support/deploy-files';

describe('docker/', () => {
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
  });
});
