/**
 * The admin server on a real port for e2e tests (`PORT=0`), one per backend kind, each with its
 * own data (temp folder, NATS bucket, Postgres table), and a small `fetch` client for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { BUILT_IN_DRIVERS, type BackendKind } from '@agent-memory/memory';
import { startApiServer, type ApiServer } from '../../src/api.server';
import { testDatabaseUrl, testNatsUrl } from '@agent-memory/test-support/services';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { adminRequest, type AdminRequest } from '@agent-memory/test-support/admin-request';

export const TEST_ADMIN_TOKEN = 'e2e-admin-token-0123456789';

/** Every built-in store's kind (`BUILT_IN_DRIVERS`), for the suites that run once per backend. */
export const ALL_BACKENDS: readonly BackendKind[] = BUILT_IN_DRIVERS.map((driver) => driver.kind);

/** A user or assistant text message as the API takes it. */
export const userText = (text: string) => ({ role: 'user', parts: [{ type: 'text', text }] });
export const assistantText = (text: string) => ({
  role: 'assistant',
  parts: [{ type: 'text', text }],
});

export interface TestServer {
  server: ApiServer;
  /** `fetch` against the server; sends the admin token unless `token` is given (null: none). */
  request: AdminRequest;
  /** `POST /api/sessions/:id/messages` with `{ messages }` (and extra headers, such as a key). */
  append(id: string, messages: unknown[], headers?: HeadersInit): Promise<Response>;
  /** Closes the server and removes its data. */
  dispose(): Promise<void>;
}

/** The environment that points a server at isolated data of one backend kind. */
export interface BackendEnv {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Where a server's isolated data comes from, per services it may be pointed at. */
type BackendOverrides = { natsUrl?: string; databaseUrl?: string };

/**
 * How to give one server data of its own, per built-in store: a temp folder, a fresh NATS
 * bucket, a fresh PostgreSQL table.
 */
const ISOLATED_DATA: Record<string, (overrides: BackendOverrides) => BackendEnv> = {
  simple: () => ({ env: { MEMORY_BACKEND: 'simple' }, cleanup: async () => undefined }),
  jsonfile: () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-memory-api-'));
    return {
      env: { MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(dir, 'sessions') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  nats: (overrides) => {
    const url = overrides.natsUrl ?? testNatsUrl();
    const buckets = new TestBuckets('api_e2e', url);
    return {
      env: { MEMORY_BACKEND: 'nats', NATS_URL: url, MEMORY_NATS_BUCKET: buckets.next() },
      cleanup: () => buckets.cleanup(),
    };
  },
  postgres: (overrides) => {
    const schemas = new TestSchemas('api_e2e', overrides.databaseUrl ?? testDatabaseUrl());
    return {
      env: {
        MEMORY_BACKEND: 'postgres',
        DATABASE_URL: schemas.url,
        MEMORY_PG_TABLE: schemas.nextTable(),
      },
      cleanup: () => schemas.cleanup().catch(() => undefined),
    };
  },
};

/**
 * The environment of a server on isolated data of the store `kind`.
 * @throws Error naming a store with no isolated data here (a driver added without its test data).
 */
export function backendEnv(kind: BackendKind, overrides: BackendOverrides = {}): BackendEnv {
  const isolated = ISOLATED_DATA[kind];
  if (!isolated) throw new Error(`api-test-server has no isolated data for the "${kind}" store`);
  return isolated(overrides);
}

export async function startTestServer(
  env: Record<string, string>,
  opts: { adminDistDir?: string; logger?: LoggerService } = {},
): Promise<TestServer> {
  const server = await startApiServer({
    env: { PORT: '0', MEMORY_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env },
    logger: opts.logger ?? (process.env.API_TEST_LOG ? ['error', 'warn'] : false),
    adminDistDir: opts.adminDistDir,
  });
  const request = adminRequest(server.url, TEST_ADMIN_TOKEN);
  return {
    server,
    request,
    append: (id, messages, headers) =>
      request(`/api/sessions/${id}/messages`, { method: 'POST', json: { messages }, headers }),
    async dispose() {
      await server.app.close();
    },
  };
}

/**
 * Call in a `describe`: before its tests, starts a server on isolated data of `kind` (plus `env`,
 * read then, so it may use what an earlier `beforeAll` started); after them, closes the server
 * and removes the data. The returned server is usable inside tests only.
 */
export function useTestServer(
  kind: BackendKind,
  env: Record<string, string> | (() => Record<string, string>) = {},
): TestServer {
  let data: BackendEnv | undefined;
  let api: TestServer | undefined;
  beforeAll(async () => {
    data = backendEnv(kind);
    api = await startTestServer({ ...data.env, ...(typeof env === 'function' ? env() : env) });
  });
  afterAll(async () => {
    await api?.dispose();
    await data?.cleanup();
  });
  const started = (): TestServer => {
    if (!api) throw new Error('the test server starts in beforeAll: use it inside a test');
    return api;
  };
  return {
    get server() {
      return started().server;
    },
    request: (path, init) => started().request(path, init),
    append: (id, messages, headers) => started().append(id, messages, headers),
    dispose: () => started().dispose(),
  };
}
