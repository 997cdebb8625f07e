/**
 * What `docker/` ships for monitoring matches the server: the alert rules pass `promtool test
 * rules`, and every metric and label the Grafana dashboard and the rules name is one the running
 * server exports on `/metrics`, including the gauges measured at scrape time (backend up,
 * compaction backlog, free storage).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Registry } from 'prom-client';
import type { JsonFileSettings } from '@agent-memory/memory';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { MemoryMetrics } from '../src/metrics/memory-metrics';
import { ALL_BACKENDS, userText, useTestServer, type TestServer } from './support/api-test-server';

const DOCKER_DIR = join(__dirname, '..', '..', '..', 'docker');
const PROMETHEUS_DIR = join(DOCKER_DIR, 'prometheus');
const DASHBOARD = join(DOCKER_DIR, 'grafana', 'dashboards', 'agent-memory.json');
/** Debian's `prometheus` package; `.ci/run` installs it. */
const PROMTOOL = process.env.PROMTOOL ?? '/usr/bin/promtool';
/** Labels Prometheus adds itself (`job`, `instance`) or that histograms have (`le`). */
const SCRAPE_LABELS = new Set(['job', 'instance', 'le']);
/** Series Prometheus makes itself for every target. */
const PROMETHEUS_SERIES = new Set(['up']);

function promtool(...args: string[]): { status: number | null; output: string } {
  if (!existsSync(PROMTOOL)) {
    throw new Error(`${PROMTOOL} is missing: install Debian's prometheus package (.ci/run does)`);
  }
  const run = spawnSync(PROMTOOL, args, { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Every PromQL expression of the dashboard's panels and of the alert rules. */
function expressions(): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const rules = parse(readFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return [
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        where: `panel "${panel.title}"`,
        expr: target.expr,
      })),
    ),
    ...rules.groups.flatMap((group) =>
      group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
    ),
  ];
}

/**
 * What an expression names: its metrics, the labels each metric's selector matches on, and the
 * labels it groups by (`by (…)`, `without (…)`).
 */
function namesIn(expr: string): {
  metrics: Set<string>;
  selected: Map<string, Set<string>>;
  grouped: string[];
} {
  const metrics = new Set<string>();
  for (const [, name] of expr.matchAll(/\b(agent_memory_[a-z0-9_]+|up)\b(?=\s*(\{|\[|\)|$|\s))/g))
    metrics.add(name!);
  const selected = new Map<string, Set<string>>();
  for (const [, name, selector] of expr.matchAll(/\b(agent_memory_[a-z0-9_]+|up)\{([^}]*)\}/g)) {
    const used = selected.get(name!) ?? new Set<string>();
    for (const [, label] of selector!.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g))
      used.add(label!);
    selected.set(name!, used);
  }
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap(([, list]) =>
    list!.split(',').map((label) => label.trim()),
  );
  return { metrics, selected, grouped };
}

/** The metric families on `/metrics` (`# TYPE` lines) and their types. */
function exportedFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(name!, type!);
  return families;
}

/** The family a series name belongs to (`x_bucket` of the histogram `x`), or null when absent. */
function familyOf(name: string, families: Map<string, string>): string | null {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return families.get(base) === 'histogram' ? base : null;
}

function labelNamesOf(registry: Registry, family: string): string[] {
  const metric = registry.getSingleMetric(family) as unknown as { labelNames?: string[] };
  return metric?.labelNames ?? [];
}

function sample(text: string, line: RegExp): number | null {
  const match = text.split('\n').find((l) => line.test(l));
  return match ? Number(match.split(' ').at(-1)) : null;
}

describe('monitoring files in docker/', () => {
  it('has alert rules that pass promtool check and their unit tests', () => {
    const config = promtool('check', 'config', 'prometheus.yml');
    expect([config.status, config.output]).toEqual([0, expect.stringContaining('SUCCESS')]);
    const tests = promtool('test', 'rules', 'alerts.test.yml');
    expect([tests.status, tests.output]).toEqual([0, expect.stringContaining('SUCCESS')]);
  });

  it('alerts on each condition an operator must hear about', () => {
    const alerts = expressions()
      .filter((e) => e.where.startsWith('alert '))
      .map((e) => e.where.slice('alert '.length));
    expect(alerts).toEqual(
      expect.arrayContaining([
        'AgentMemoryBackendDown',
        'AgentMemoryWriteErrors',
        'AgentMemoryCompactionFailing',
        'AgentMemoryCompactionLagging',
        'AgentMemorySessionsNearSizeLimit',
        'AgentMemoryEventLoopHeld',
        'AgentMemoryStorageNearlyFull',
        'AgentMemoryAuditFailures',
      ]),
    );
  });
});

describe('the metrics the dashboard and the rules name, on a running JSON-file server', () => {
  const api = useTestServer('jsonfile');

  it('are all exported, with the labels they select and group by', async () => {
    await api.append('watched', [userText('a question worth remembering')]);
    const response = await api.request('/metrics');
    expect(response.status).toBe(200);
    const families = exportedFamilies(await response.text());
    const registry = api.server.app.get(MemoryMetrics).registry;

    const problems: string[] = [];
    for (const { where, expr } of expressions()) {
      const { metrics, selected, grouped } = namesIn(expr);
      expect([where, metrics.size > 0]).toEqual([where, true]);
      const known = new Set<string>(SCRAPE_LABELS);
      for (const name of metrics) {
        if (PROMETHEUS_SERIES.has(name)) continue;
        const family = familyOf(name, families);
        if (family === null) {
          problems.push(`${where}: ${name} is not exported`);
          continue;
        }
        const own = labelNamesOf(registry, family);
        own.forEach((label) => known.add(label));
        for (const label of selected.get(name) ?? []) {
          if (!own.includes(label) && !SCRAPE_LABELS.has(label))
            problems.push(`${where}: ${name} has no label ${label}`);
        }
      }
      // A grouping label must exist on at least one metric of the expression.
      for (const label of grouped)
        if (!known.has(label)) problems.push(`${where}: no metric of it has the label ${label}`);
    }
    expect(problems).toEqual([]);
  });
});

describe.each(ALL_BACKENDS)('scrape-time gauges on the %s backend', (kind) => {
  const api = useTestServer(kind);

  it('report the backend up and an empty compaction backlog', async () => {
    const text = await (await api.request('/metrics')).text();
    expect(sample(text, new RegExp(`^agent_memory_backend_up\\{backend="${kind}"\\}`))).toBe(1);
    expect(sample(text, /^agent_memory_compaction_jobs\{state="queued"\}/)).toBe(0);
    expect(sample(text, /^agent_memory_compaction_jobs\{state="running"\}/)).toBe(0);
    expect(sample(text, /^agent_memory_compaction_oldest_job_age_seconds /)).toBe(0);
    const free = sample(text, /^agent_memory_storage_free_bytes\{/);
    if (kind === 'jsonfile') {
      const size = sample(text, /^agent_memory_storage_size_bytes\{backend="jsonfile"\}/)!;
      expect(free).toBeGreaterThan(0);
      expect(size).toBeGreaterThanOrEqual(free!);
    } else expect(free).toBeNull();
  });
});

describe('scrape-time gauges that move', () => {
  describe('while a compaction waits for the LLM', () => {
    let llm: FakeLlm;
    beforeAll(async () => {
      llm = await startFakeLlm();
    });
    afterAll(() => llm?.close());
    const api = useTestServer('simple', () => ({
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      COMPACT_KEEP_RECENT: '1',
    }));

    it('counts the running and queued jobs and ages the oldest, then returns to zero', async () => {
      const turns = ['plan a trip to Porto', 'by train', 'two nights', 'near the river'];
      await api.append('slow', turns.map(userText));
      const held = llm.holdNext('a summary of the trip');
      const calls = llm.requests.length;
      const compact = () =>
        api.request('/api/sessions/slow/compact', { method: 'POST', json: { force: true } });
      expect((await compact()).status).toBe(202);
      await llm.waitForRequests(calls + 1);
      // The session runs one job at a time: the second waits behind the first.
      expect((await compact()).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 20));

      const during = await (await api.request('/metrics')).text();
      expect(sample(during, /^agent_memory_compaction_jobs\{state="running"\}/)).toBe(1);
      expect(sample(during, /^agent_memory_compaction_jobs\{state="queued"\}/)).toBe(1);
      expect(sample(during, /^agent_memory_compaction_oldest_job_age_seconds /)).toBeGreaterThan(
        0.01,
      );

      held.release();
      let after = '';
      for (let i = 0; i < 200; i++) {
        after = await (await api.request('/metrics')).text();
        if (sample(after, /^agent_memory_compaction_oldest_job_age_seconds /) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(sample(after, /^agent_memory_compaction_jobs\{state="running"\}/)).toBe(0);
      expect(sample(after, /^agent_memory_compaction_jobs\{state="queued"\}/)).toBe(0);
      expect(sample(after, /^agent_memory_compaction_oldest_job_age_seconds /)).toBe(0);
    });
  });

  describe('when the JSON-file folder is gone', () => {
    const api: TestServer = useTestServer('jsonfile');

    it('reports the backend down until the folder is back', async () => {
      const { dir } = api.server.config.store as JsonFileSettings;
      const up = /^agent_memory_backend_up\{backend="jsonfile"\}/;
      expect(sample(await (await api.request('/metrics')).text(), up)).toBe(1);
      // A file where the folder was: the backend's check cannot write its probe.
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(dir, 'not a folder');
      expect(sample(await (await api.request('/metrics')).text(), up)).toBe(0);
      rmSync(dir);
      mkdirSync(dir);
      expect(sample(await (await api.request('/metrics')).text(), up)).toBe(1);
    });
  });
});
