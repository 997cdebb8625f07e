/**
 * The admin server on a real port for e2e tests (`PORT=0`), one per backend kind, each with its
 * own data (temp folder, NATS bucket, Postgres table), and a small `fetch` client for it.
 */
import type { LoggerService } from '@nestjs/common';
import { BUILT_IN_DRIVERS, requireDriver, type BackendKind } from '@agent-memory/memory';
import { startApiServer, type ApiServer } from '../../src/api.server';
import { IsolatedStores } from '@agent-memory/test-support/isolated-stores';
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

/**
 * The environment of a server on isolated data of the store `kind`: the variables its driver
 * reads, pointed at a temp folder, a fresh PostgreSQL table or a fresh NATS bucket.
 * @param overrides the servers to use instead of the test services.
 */
export function backendEnv(
  kind: BackendKind,
  overrides: { natsUrl?: string; databaseUrl?: string } = {},
): BackendEnv {
  const stores = new IsolatedStores('api_e2e', overrides);
  return {
    env: { MEMORY_BACKEND: kind, ...stores.envOf(requireDriver(BUILT_IN_DRIVERS, kind)) },
    cleanup: () => stores.cleanup().catch(() => undefined),
  };
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
