/**
 * `/mcp` on the running admin server, through the official SDK client
 * (`StreamableHTTPClientTransport`): the tools over JSON files, PostgreSQL and NATS agree with
 * the REST routes; the token gate (every spelling of the path), the roles (a viewer reads, an
 * operator writes and compacts) and the audit log (tool changes recorded like the API's, refused
 * ones too); the body bound; `search_memory` with and without recall.
 */
import { createHash } from 'node:crypto';
import {
  Agent,
  MCPServerStreamableHttp,
  OpenAIProvider,
  run,
  setTracingDisabled,
} from '@openai/agents';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MEMORY_BACKEND, type AuditEntry } from '@agent-memory/memory';
import type { RecallBackend } from '@agent-memory/memory/rag';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { AuditRecorder } from '../src/audit/audit-recorder';
import { DEFAULT_REFUSED_ENTRIES_PER_ACTOR } from '../src/audit/refused-entry-budget';
import { MAX_BODY_SIZE } from '../src/api.server';
import {
  startTestServer,
  TEST_ADMIN_TOKEN,
  useTestServer,
  type TestServer,
} from './support/api-test-server';

setTracingDisabled(true);

const VIEWER = 'mcp-viewer-token-0123456789';
const OPERATOR = 'mcp-operator-token-0123456789';
const hashOf = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

/** An SDK client connected to the server's `/mcp` with `token`. */
async function mcpClient(api: TestServer, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', api.server.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** The audit log's entries of MCP tools, oldest first, once every recorded entry is written. */
async function mcpAudit(api: TestServer): Promise<AuditEntry[]> {
  await api.server.app.get(AuditRecorder).settled();
  const res = await api.request('/api/audit?limit=500');
  const { items } = (await res.json()) as { items: AuditEntry[] };
  return items.filter((entry) => entry.action.startsWith('POST /mcp')).reverse();
}

describe.each(['jsonfile', 'postgres', 'nats'] as const)('/mcp on %s', (kind) => {
  const api = useTestServer(kind);
  let client: Client;
  beforeAll(async () => {
    client = await mcpClient(api, TEST_ADMIN_TOKEN);
  });
  afterAll(() => client?.close());

  it('appends through a tool what the REST routes then read, and reports the same tokens', async () => {
    const saved = await call(client, 'append_messages', {
      sessionId: `mcp.${kind}`,
      messages: [
        { role: 'user', text: 'Plan a trip to Porto' },
        { role: 'assistant', text: 'Three days: Ribeira, Livraria Lello, a port cellar.' },
      ],
      idempotencyKey: 'trip-1',
    });
    expect(saved.isError).toBeFalsy();
    const { first, last } = saved.structuredContent as { first: number; last: number };
    const rest = await api.request(`/api/sessions/mcp.${kind}/messages`);
    const page = (await rest.json()) as { items: { cursor: number }[] };
    expect(page.items.map((e) => e.cursor)).toEqual([first, last]);

    const again = await call(client, 'append_messages', {
      sessionId: `mcp.${kind}`,
      messages: [
        { role: 'user', text: 'Plan a trip to Porto' },
        { role: 'assistant', text: 'Three days: Ribeira, Livraria Lello, a port cellar.' },
      ],
      idempotencyKey: 'trip-1',
    });
    expect(again.structuredContent).toEqual({ first, last, replayed: true });

    const detail = (await (await api.request(`/api/sessions/mcp.${kind}`)).json()) as {
      tokens: number;
      messages: number;
    };
    expect(detail.messages).toBe(2);
    const context = await call(client, 'get_context', { sessionId: `mcp.${kind}` });
    expect((context.structuredContent as { tokens: number }).tokens).toBe(detail.tokens);

    const read = await call(client, 'read_messages', { sessionId: `mcp.${kind}`, after: first });
    expect(read.structuredContent).toMatchObject({ items: [{ cursor: last }], next: null });
    const listed = await call(client, 'list_sessions', { search: 'mcp.' });
    expect(listed.structuredContent).toMatchObject({ items: [{ id: `mcp.${kind}` }] });
  });

  it('dry-runs compact_session through the compaction service; the resource is the transcript', async () => {
    const dry = await call(client, 'compact_session', {
      sessionId: `mcp.${kind}`,
      force: true,
      dryRun: true,
    });
    expect(dry.isError).toBeFalsy();
    expect(dry.structuredContent).toMatchObject({ tokensBefore: expect.any(Number) });
    const resource = await client.readResource({ uri: `memory://sessions/mcp.${kind}` });
    expect((resource.contents[0] as { text: string }).text).toContain('Plan a trip to Porto');
    const unknown = await call(client, 'get_context', { sessionId: 'never.saved' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^SESSION_NOT_FOUND: /);
  });
});

describe('/mcp behind the token gate, with roles and the audit log', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startTestServer({
      MEMORY_BACKEND: 'simple',
      MEMORY_ADMIN_TOKENS: [
        `reader viewer ${hashOf(VIEWER)}`,
        `writer operator ${hashOf(OPERATOR)}`,
      ].join('\n'),
    });
  });
  afterAll(() => api?.dispose());

  it('refuses a request without a valid token in any spelling of the path, before the body is read', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    for (const path of ['/mcp', '/MCP', '//mcp/', '/%6Dcp']) {
      const res = await fetch(`${api.server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const wrong = new StreamableHTTPClientTransport(new URL('/mcp', api.server.url), {
      requestInit: { headers: { Authorization: 'Bearer not-a-token' } },
    });
    await expect(new Client({ name: 'x', version: '1' }).connect(wrong)).rejects.toThrow();
  });

  it('answers a body over the bound with 413, storing nothing', async () => {
    const huge = 'x'.repeat(5 * 1024 * 1024);
    expect(MAX_BODY_SIZE).toBe('4mb');
    const res = await fetch(`${api.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OPERATOR}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'append_messages',
          arguments: { sessionId: 'big', messages: [{ role: 'user', text: huge }] },
        },
      }),
    });
    expect(res.status).toBe(413);
    expect(await api.server.app.get<RecallBackend>(MEMORY_BACKEND).inspect('big')).toBeNull();
  });

  it('answers a body of another content type 415, storing nothing', async () => {
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'append_messages',
        arguments: { sessionId: 'seq', messages: [{ role: 'user', text: 'x'.repeat(5_000_000) }] },
      },
    });
    for (const type of ['application/json-seq', 'text/plain']) {
      const res = await fetch(`${api.server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${OPERATOR}`,
          'content-type': type,
          accept: 'application/json, text/event-stream',
        },
        body: call,
      });
      expect(res.status).toBe(415);
    }
    expect(await api.server.app.get<RecallBackend>(MEMORY_BACKEND).inspect('seq')).toBeNull();
  });

  it('lets a viewer read and refuses its writes with FORBIDDEN_ROLE, storing nothing, recorded', async () => {
    await api.append('shared', [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }]);
    const viewer = await mcpClient(api, VIEWER);
    try {
      const context = await call(viewer, 'get_context', { sessionId: 'shared' });
      expect(context.isError).toBeFalsy();
      const list = await call(viewer, 'list_sessions', {});
      expect(list.structuredContent).toMatchObject({ items: [{ id: 'shared' }] });

      const append = await call(viewer, 'append_messages', {
        sessionId: 'shared',
        messages: [{ role: 'user', text: 'sneaky' }],
      });
      expect(append.isError).toBe(true);
      expect(textOf(append)).toMatch(/^FORBIDDEN_ROLE: append_messages needs the operator role/);
      const compact = await call(viewer, 'compact_session', { sessionId: 'shared', force: true });
      expect(textOf(compact)).toMatch(/^FORBIDDEN_ROLE: /);
      const detail = (await (await api.request('/api/sessions/shared')).json()) as {
        messages: number;
        hasSnapshot: boolean;
      };
      expect(detail).toMatchObject({ messages: 1, hasSnapshot: false });
    } finally {
      await viewer.close();
    }

    const operator = await mcpClient(api, OPERATOR);
    try {
      const saved = await call(operator, 'append_messages', {
        sessionId: 'shared',
        messages: [{ role: 'assistant', text: 'hi there' }],
      });
      expect(saved.isError).toBeFalsy();
      const bad = await call(operator, 'append_messages', {
        sessionId: 'not valid',
        messages: [{ role: 'user', text: 'x' }],
      });
      expect(textOf(bad)).toMatch(/^INVALID_SESSION_ID: /);
      const wrongType = await call(operator, 'append_messages', {
        sessionId: 'shared',
        messages: 'hello',
      });
      expect(textOf(wrongType)).toMatch(/^INVALID_ARGUMENTS: messages: /);
    } finally {
      await operator.close();
    }

    expect(await mcpAudit(api)).toEqual([
      expect.objectContaining({
        actor: { name: 'reader', role: 'viewer' },
        action: 'POST /mcp append_messages',
        sessionId: 'shared',
        status: 403,
        code: 'FORBIDDEN_ROLE',
      }),
      expect.objectContaining({
        actor: { name: 'reader', role: 'viewer' },
        action: 'POST /mcp compact_session',
        status: 403,
        code: 'FORBIDDEN_ROLE',
      }),
      expect.objectContaining({
        actor: { name: 'writer', role: 'operator' },
        action: 'POST /mcp append_messages',
        sessionId: 'shared',
        status: 200,
        code: null,
      }),
      expect.objectContaining({
        actor: { name: 'writer', role: 'operator' },
        action: 'POST /mcp append_messages',
        sessionId: 'not valid',
        status: 400,
        code: 'INVALID_SESSION_ID',
      }),
      expect.objectContaining({
        action: 'POST /mcp append_messages',
        sessionId: 'shared',
        status: 400,
        code: 'INVALID_ARGUMENTS',
      }),
    ]);
  });

  it('records no audit entry for reads nor for the protocol requests themselves', async () => {
    const before = (await mcpAudit(api)).length;
    const viewer = await mcpClient(api, VIEWER);
    await viewer.listTools();
    await call(viewer, 'read_messages', { sessionId: 'shared' });
    await viewer.close();
    expect(await mcpAudit(api)).toHaveLength(before);
    await api.server.app.get(AuditRecorder).settled();
    const all = (await (await api.request('/api/audit?limit=500')).json()) as {
      items: AuditEntry[];
    };
    expect(all.items.filter((entry) => entry.action === 'POST /mcp')).toEqual([]);
  });

  it("keeps a viewer's refused tool calls within its budget and cuts long parameters", async () => {
    const before = (await mcpAudit(api)).filter((entry) => entry.actor.name === 'reader').length;
    const viewer = await mcpClient(api, VIEWER);
    try {
      for (let i = 0; i < DEFAULT_REFUSED_ENTRIES_PER_ACTOR + 5; i++) {
        const refused = await call(viewer, 'append_messages', {
          sessionId: `s${'x'.repeat(2_000)}`,
          messages: [{ role: 'user', text: 'flood' }],
        });
        expect(textOf(refused)).toMatch(/^FORBIDDEN_ROLE: /);
      }
    } finally {
      await viewer.close();
    }
    const reader = (await mcpAudit(api)).filter((entry) => entry.actor.name === 'reader');
    // Whatever earlier refusals took of the budget, the flood fills the rest and no more.
    expect(reader).toHaveLength(DEFAULT_REFUSED_ENTRIES_PER_ACTOR);
    for (const entry of reader.slice(before)) {
      expect(entry.sessionId).toMatch(/^sx{255}…\[1745 more characters not kept\]$/);
    }
  });

  it('answers GET with 405 (a stateless server has no event stream)', async () => {
    const res = await api.request('/mcp');
    expect(res.status).toBe(405);
  });

  it('search_memory without recall answers RECALL_NOT_CONFIGURED', async () => {
    const viewer = await mcpClient(api, VIEWER);
    try {
      const result = await call(viewer, 'search_memory', { query: 'hello' });
      expect(textOf(result)).toMatch(/^RECALL_NOT_CONFIGURED: /);
    } finally {
      await viewer.close();
    }
  });
});

describe('/mcp search_memory with recall configured', () => {
  const api = useTestServer('jsonfile', { MEMORY_RECALL_EMBEDDER: 'hashed' });

  it("finds messages across a resource's sessions, best first", async () => {
    const patch = (id: string, resource: string) =>
      api.request(`/api/sessions/${id}/meta`, { method: 'PATCH', json: { resource } });
    await patch('ana.1', 'ana');
    await patch('ana.2', 'ana');
    await patch('ben.1', 'ben');
    const text = (t: string) => [{ role: 'user', parts: [{ type: 'text', text: t }] }];
    await api.append('ana.1', text('my passport number ends in 4411'));
    await api.append('ana.2', text('book the dentist for Tuesday'));
    await api.append('ben.1', text('my passport number ends in 9000'));
    await api.server.app.get<RecallBackend>(MEMORY_BACKEND).recallIndexer.whenIdle();

    const client = await mcpClient(api, TEST_ADMIN_TOKEN);
    try {
      const ana = await call(client, 'search_memory', {
        query: 'passport number',
        resource: 'ana',
      });
      const hits = (ana.structuredContent as { hits: { sessionId: string; text: string }[] }).hits;
      expect(hits[0]).toMatchObject({
        sessionId: 'ana.1',
        text: 'my passport number ends in 4411',
      });
      expect(hits.every((hit) => hit.sessionId.startsWith('ana.'))).toBe(true);
      const everyone = await call(client, 'search_memory', { query: 'passport number', limit: 2 });
      const ids = (everyone.structuredContent as { hits: { sessionId: string }[] }).hits.map(
        (hit) => hit.sessionId,
      );
      expect(ids.sort()).toEqual(['ana.1', 'ben.1']);
    } finally {
      await client.close();
    }
  });
});

describe("an OpenAI Agents SDK loop over /mcp with a viewer's token", () => {
  let api: TestServer;
  let llm: FakeLlm;
  let memory: MCPServerStreamableHttp;
  beforeAll(async () => {
    llm = await startFakeLlm();
    api = await startTestServer({
      MEMORY_BACKEND: 'simple',
      MEMORY_ADMIN_TOKENS: `reader viewer ${hashOf(VIEWER)}`,
    });
    memory = new MCPServerStreamableHttp({
      name: 'memory',
      url: new URL('/mcp', api.server.url).href,
      requestInit: { headers: { Authorization: `Bearer ${VIEWER}` } },
    });
    await memory.connect();
  });
  afterAll(async () => {
    await memory?.close();
    await api?.dispose();
    await llm?.close();
  });

  it('reads the context for the model, and its refused write comes back as FORBIDDEN_ROLE', async () => {
    await api.append('desk.7', [
      { role: 'user', parts: [{ type: 'text', text: 'Order #5512 is late' }] },
    ]);
    llm.replyWith({
      toolCalls: [
        {
          id: 'c1',
          type: 'function',
          function: { name: 'get_context', arguments: '{"sessionId":"desk.7"}' },
        },
        {
          id: 'c2',
          type: 'function',
          function: {
            name: 'append_messages',
            arguments: '{"sessionId":"desk.7","messages":[{"role":"assistant","text":"On it"}]}',
          },
        },
      ],
    });
    llm.reply('Order #5512 is late; I could not note it (read-only access).');
    const provider = new OpenAIProvider({ apiKey: 'k', baseURL: llm.baseUrl, useResponses: false });
    const agent = new Agent({
      name: 'Support',
      instructions: 'Check the memory first.',
      model: await provider.getModel('fake-model'),
      mcpServers: [memory],
    });

    const result = await run(agent, 'What is going on at desk 7?');

    expect(result.finalOutput).toMatch(/^Order #5512 is late/);
    const toolMessages = llm.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool');
    const byCall = new Map(toolMessages.map((m) => [m.tool_call_id, JSON.stringify(m.content)]));
    expect(byCall.get('c1')).toContain('Order #5512 is late');
    expect(byCall.get('c2')).toContain('FORBIDDEN_ROLE: append_messages needs the operator role');
    const detail = (await (await api.request('/api/sessions/desk.7')).json()) as {
      messages: number;
    };
    expect(detail.messages).toBe(1);
  });
});
