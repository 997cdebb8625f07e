/**
 * A throwaway NATS JetStream cluster for tests: `nodes` local nats-server processes (Debian's 2.9
 * works), loopback only, ports from {@link freePort}, each with its own store directory, routed to
 * each other as one cluster. A node can be stopped and started again on the same ports and data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort, isPortOpen, type ThrowawayServer } from './services';

export interface ThrowawayNatsCluster {
  /** The client URL of every node, for `servers`. */
  readonly urls: string[];
  readonly nodes: Array<ThrowawayServer & { readonly name: string }>;
  /** Resolves once JetStream answers through the cluster (a meta leader is elected). */
  ready(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes their data. */
  dispose(): Promise<void>;
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} within ${timeoutMs} ms`);
}

/** Starts a cluster of `nodes` servers (default 3) and waits until JetStream is ready on it. */
export async function startThrowawayNatsCluster(
  opts: { nodes?: number; name?: string } = {},
): Promise<ThrowawayNatsCluster> {
  const count = opts.nodes ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-nats-cluster-'));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < count; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const nodes = clientPorts.map((port, i) => {
    const name = `n${i + 1}`;
    const config = join(dir, `${name}.conf`);
    const routes = routePorts
      .filter((_, j) => j !== i)
      .map((p) => `    "nats-route://127.0.0.1:${p}"`);
    writeFileSync(
      config,
      [
        `server_name: ${name}`,
        `host: 127.0.0.1`,
        `port: ${port}`,
        `jetstream { store_dir: "${join(dir, name)}" }`,
        `cluster {`,
        `  name: ${opts.name ?? 'agent_memory_test'}`,
        `  host: 127.0.0.1`,
        `  port: ${routePorts[i]}`,
        `  routes: [`,
        ...routes,
        `  ]`,
        `}`,
      ].join('\n'),
    );
    let child: ChildProcess | null = null;
    const node = {
      name,
      url: `nats://127.0.0.1:${port}`,
      port,
      async start() {
        const started = spawn('nats-server', ['-c', config], { stdio: 'ignore' });
        child = started;
        const failed = new Promise<never>((_, reject) =>
          started.once('error', (error) =>
            reject(new Error(`cannot run nats-server: ${error.message}`)),
          ),
        );
        await Promise.race([
          waitFor(`nats-server ${name} did not listen on ${port}`, 15000, () => isPortOpen(port)),
          failed,
        ]);
      },
      async stop() {
        const running = child;
        child = null;
        if (!running || running.exitCode !== null) return;
        await new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
          running.kill('SIGTERM');
        });
        await waitFor(
          `nats-server ${name} did not stop`,
          15000,
          async () => !(await isPortOpen(port)),
        );
      },
      async dispose() {
        await node.stop();
      },
    };
    return node;
  });
  const cluster: ThrowawayNatsCluster = {
    urls: nodes.map((n) => n.url),
    nodes,
    async ready(timeoutMs = 30000) {
      await waitFor('the JetStream cluster did not become ready', timeoutMs, async () => {
        const nc = await connect({ servers: cluster.urls, timeout: 1000 }).catch(() => null);
        if (!nc) return false;
        try {
          const jsm = await nc.jetstreamManager({ timeout: 1000 });
          await jsm.getAccountInfo();
          return true;
        } catch {
          return false;
        } finally {
          await nc.close();
        }
      });
    },
    async dispose() {
      for (const node of nodes) await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((n) => n.start()));
    await cluster.ready();
  } catch (error) {
    await cluster.dispose();
    throw error;
  }
  return cluster;
}
