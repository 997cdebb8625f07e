/**
 * `agent-memory mcp` as an MCP client runs it: the official SDK client spawns the command
 * (`StdioClientTransport`) on a JSON-file folder and on PostgreSQL, the store chosen by flags or
 * the server's variables; what the tools write is in the store, what the store holds is in the
 * tools and resources, and stdout carries nothing but the protocol.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  jsonFileBackend,
  textContent,
  userMessage,
  type MemoryBackend,
} from '@agent-memory/memory';
import { natsBackend } from '@agent-memory/memory/nats';
import { postgresBackend } from '@agent-memory/memory/postgres';
import { TestBuckets } from '@agent-memory/test-support/nats';
import { TestSchemas } from '@agent-memory/test-support/postgres';
import { testNatsUrl } from '@agent-memory/test-support/services';
import {
  AGENT_MEMORY_CLI,
  REPO_ROOT,
  cliBaseEnv,
  runAgentMemory,
} from '@agent-memory/test-support/agent-memory-cli';

interface Session {
  client: Client;
  /** Errors the client met reading the server's stdout (a stray log line would be one). */
  streamErrors: Error[];
  stderr: () => string;
  close(): Promise<void>;
}

/** Spawns `agent-memory mcp <args>` with `env` on a clean environment and connects a client. */
async function startMcp(args: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-r', '@swc-node/register', AGENT_MEMORY_CLI, 'mcp', ...args],
    cwd: REPO_ROOT,
    env: { ...cliBaseEnv(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'cli-spec', version: '1.0.0' });
  const streamErrors: Error[] = [];
  client.onerror = (error) => streamErrors.push(error);
  await client.connect(transport);
  return { client, streamErrors, stderr: () => stderr, close: () => client.close() };
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const schemas = new TestSchemas('mcpcli');
const buckets = new TestBuckets('mcpcli');
const root = mkdtempSync(join(tmpdir(), 'agent-memory-cli-mcp-'));
const opened: MemoryBackend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((backend) => backend.close()));
  await schemas.cleanup();
  await buckets.cleanup();
  rmSync(root, { recursive: true, force: true });
});

/** The same checks on any store: `seed` is the store as the library opens it. */
async function roundTrip(mcp: Session, seed: MemoryBackend): Promise<void> {
  await (await seed.open('before')).save([userMessage('written by the library')]);
  const list = await call(mcp.client, 'list_sessions', {});
  expect(list.structuredContent).toMatchObject({ items: [{ id: 'before', messages: 1 }] });

  const saved = await call(mcp.client, 'append_messages', {
    sessionId: 'from.tool',
    messages: [
      { role: 'user', text: 'Remember: the gate code is 4471' },
      { role: 'assistant', text: 'Noted.' },
    ],
    idempotencyKey: 'turn-1',
  });
  expect(saved.structuredContent).toMatchObject({ replayed: false });
  const stored = await (await seed.open('from.tool')).retrieve();
  expect(stored.map(textContent)).toEqual(['Remember: the gate code is 4471', 'Noted.']);

  const context = await call(mcp.client, 'get_context', { sessionId: 'from.tool' });
  expect((context.structuredContent as { tokens: number }).tokens).toBeGreaterThan(0);
  const read = await mcp.client.readResource({ uri: 'memory://sessions/before' });
  expect((read.contents[0] as { text: string }).text).toContain('written by the library');
  const { resources } = await mcp.client.listResources();
  expect(resources.map((r) => r.uri).sort()).toEqual([
    'memory://sessions/before',
    'memory://sessions/from.tool',
  ]);

  const bad = await call(mcp.client, 'read_messages', { sessionId: 'no such id' });
  expect(bad.isError).toBe(true);
  expect((bad.content[0] as { text: string }).text).toMatch(/^INVALID_SESSION_ID: /);
  expect(mcp.streamErrors).toEqual([]);
  expect(mcp.stderr()).toMatch(/serving the (jsonfile|postgres|nats) store over stdio/);
}

it('serves a JSON-file folder chosen by --backend and --dir', async () => {
  const dir = join(root, 'sessions');
  const seed = jsonFileBackend({ dir });
  opened.push(seed);
  const mcp = await startMcp(['--backend', 'jsonfile', '--dir', dir]);
  try {
    await roundTrip(mcp, seed);
  } finally {
    await mcp.close();
  }
}, 60_000);

it('serves PostgreSQL chosen by the server variables', async () => {
  const table = schemas.nextTable();
  const seed = await postgresBackend({ url: schemas.url, table });
  opened.push(seed);
  const mcp = await startMcp([], {
    MEMORY_BACKEND: 'postgres',
    DATABASE_URL: schemas.url,
    MEMORY_PG_TABLE: table,
  });
  try {
    await roundTrip(mcp, seed);
  } finally {
    await mcp.close();
  }
}, 60_000);

it('serves a NATS bucket chosen by --backend, --nats-url and --bucket', async () => {
  const bucket = buckets.next();
  const seed = await natsBackend({ servers: testNatsUrl(), bucket });
  opened.push(seed);
  const mcp = await startMcp([
    '--backend',
    'nats',
    '--nats-url',
    testNatsUrl(),
    '--bucket',
    bucket,
  ]);
  try {
    await roundTrip(mcp, seed);
  } finally {
    await mcp.close();
  }
}, 60_000);

/** Runs `agent-memory mcp <args>` with `input` on stdin, then closes stdin. */
const runToExit = (args: string[], input = '') => runAgentMemory(['mcp', ...args], { input });

it('answers on stdout only in protocol, and exits 0 once stdin closes, closing the store', async () => {
  const ping = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`;
  const run = await runToExit(['--backend', 'jsonfile', '--dir', join(root, 'exit')], ping);
  expect(run.code).toBe(0);
  expect(
    run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown),
  ).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  expect(run.stderr).toMatch(/stdin closed, closing the store/);
}, 60_000);

it('names a store it does not know and exits 2 without opening one', async () => {
  const run = await runToExit(['--backend', 'simple']);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/unknown backend "simple": jsonfile, postgres or nats/);
}, 60_000);
