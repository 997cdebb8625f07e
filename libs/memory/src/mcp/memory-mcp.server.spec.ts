/**
 * `createMemoryMcpServer` through the official SDK client (linked in-process transports) over the
 * in-process store: the six tools' schemas and results, errors as `isError` results starting with
 * their code, the session resources (listed newest first, paged), and the hooks the admin server
 * uses (authorize, onToolResult, afterAppend).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUMMARY_PREFIX, simpleBackend, textContent, userMessage, type MemoryBackend } from '..';
import { HashedNgramEmbedder, InMemoryVectorStore, withRecall, type RecallBackend } from '../rag';
import {
  createMemoryMcpServer,
  MCP_MAX_TRANSCRIPT_MESSAGES,
  MemoryMcpToolError,
  type MemoryMcpServerOptions,
  type MemoryMcpToolOutcome,
} from '.';

async function connect(
  backend: MemoryBackend,
  opts?: MemoryMcpServerOptions,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = createMemoryMcpServer(backend, opts);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'spec', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
}

describe('createMemoryMcpServer over the in-process store', () => {
  let backend: MemoryBackend;
  let client: Client;
  let close: () => Promise<void>;
  /** Each afterAppend call: the session and the texts of the messages it stored. */
  const appended: Array<[string, string[]]> = [];
  beforeEach(async () => {
    backend = simpleBackend({ capacity: 1000 });
    appended.length = 0;
    ({ client, close } = await connect(backend, {
      compactionThresholdTokens: 50,
      afterAppend: (id, _result, saved) =>
        appended.push([id, saved.map((message) => textContent(message))]),
    }));
  });
  afterEach(async () => {
    await close();
    await backend.close();
  });

  it("introduces itself with the package's name and version", async () => {
    const manifest = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(client.getServerVersion()).toEqual({ name: 'agent-memory', version: manifest.version });
    expect(client.getInstructions()).toMatch(/search_memory finds earlier messages/);
  });

  it('lists the six tools with JSON Schema inputs a model can read', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'append_messages',
      'compact_session',
      'get_context',
      'list_sessions',
      'read_messages',
      'search_memory',
    ]);
    const append = tools.find((t) => t.name === 'append_messages')!;
    expect(append.inputSchema.required).toEqual(['sessionId', 'messages']);
    const messages = append.inputSchema.properties!.messages as {
      items: { properties: { role: { enum: string[] } } };
      description: string;
    };
    expect(messages.items.properties.role.enum).toEqual(['user', 'assistant', 'system']);
    expect(messages.description).toMatch(/oldest first/);
    expect(append.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tools.find((t) => t.name === 'compact_session')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(tools.find((t) => t.name === 'get_context')!.annotations).toMatchObject({
      readOnlyHint: true,
    });
  });

  it('appends, reads the log by cursor, lists the session and shows its context with tokens', async () => {
    const saved = await call(client, 'append_messages', {
      sessionId: 'chat.1',
      messages: [
        { role: 'user', text: 'Book a table for two' },
        { role: 'assistant', text: 'Booked for 8 pm.' },
      ],
    });
    expect(saved.isError).toBeFalsy();
    const result = saved.structuredContent as { first: number; last: number; replayed: boolean };
    expect(result).toEqual({ first: expect.any(Number), last: result.first + 1, replayed: false });
    expect(JSON.parse((saved.content[0] as { text: string }).text)).toEqual(result);
    expect(appended).toEqual([['chat.1', ['Book a table for two', 'Booked for 8 pm.']]]);

    const page1 = await call(client, 'read_messages', { sessionId: 'chat.1', limit: 1 });
    const first = page1.structuredContent as { items: { cursor: number }[]; next: number };
    expect(first.items).toHaveLength(1);
    expect(first.next).toBe(result.first);
    const page2 = await call(client, 'read_messages', {
      sessionId: 'chat.1',
      after: first.next,
      limit: 1,
    });
    expect(page2.structuredContent).toMatchObject({
      items: [{ cursor: result.last, message: { role: 'assistant' } }],
      next: null,
    });

    const list = await call(client, 'list_sessions', {});
    expect(list.structuredContent).toMatchObject({
      items: [{ id: 'chat.1', messages: 2, stored: 2 }],
      next: null,
    });
    const context = await call(client, 'get_context', { sessionId: 'chat.1' });
    const { messages, tokens } = context.structuredContent as {
      messages: { role: string }[];
      tokens: number;
    };
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(tokens).toBeGreaterThan(5);
  });

  it('an idempotency key makes a retry store nothing and answer as the first time', async () => {
    const args = {
      sessionId: 's1',
      messages: [{ role: 'user', text: 'hello' }],
      idempotencyKey: 'turn-1',
    };
    const first = (await call(client, 'append_messages', args)).structuredContent;
    const again = (await call(client, 'append_messages', args)).structuredContent;
    expect(again).toEqual({ ...first, replayed: true });
    expect((await backend.inspect('s1'))!.messages).toBe(1);
    expect(appended).toEqual([['s1', ['hello']]]);
    const reused = await call(client, 'append_messages', {
      ...args,
      messages: [{ role: 'user', text: 'other' }],
    });
    expect(errorText(reused)).toMatch(/^IDEMPOTENCY_KEY_REUSED: /);
  });

  it('answers bad values with an error result starting with the code, storing nothing', async () => {
    expect(errorText(await call(client, 'get_context', { sessionId: '../etc/passwd' }))).toMatch(
      /^INVALID_SESSION_ID: /,
    );
    expect(
      errorText(
        await call(client, 'append_messages', {
          sessionId: 'bad id',
          messages: [{ role: 'user', text: 'x' }],
        }),
      ),
    ).toMatch(/^INVALID_SESSION_ID: /);
    expect(
      errorText(await call(client, 'append_messages', { sessionId: 'ok', messages: [] })),
    ).toMatch(/^INVALID_MESSAGE: .*1 to 500/);
    expect(errorText(await call(client, 'list_sessions', { limit: 0 }))).toMatch(
      /^INVALID_QUERY: invalid limit/,
    );
    expect(errorText(await call(client, 'read_messages', { sessionId: 'nope' }))).toMatch(
      /^SESSION_NOT_FOUND: session "nope"/,
    );
    expect(errorText(await call(client, 'compact_session', { sessionId: 'nope' }))).toMatch(
      /^SESSION_NOT_FOUND: /,
    );
    expect(errorText(await call(client, 'list_sessions', { after: 'not-a-token' }))).toMatch(
      /^INVALID_QUERY: /,
    );
    expect((await backend.list({})).items).toEqual([]);
  });

  it('answers arguments of the wrong type INVALID_ARGUMENTS naming the field', async () => {
    expect(errorText(await call(client, 'list_sessions', { limit: 'ten' }))).toMatch(
      /^INVALID_ARGUMENTS: limit: .*number/,
    );
    expect(
      errorText(
        await call(client, 'append_messages', {
          sessionId: 's',
          messages: [{ role: 'tool', text: 'x' }],
        }),
      ),
    ).toMatch(/^INVALID_ARGUMENTS: messages\.0\.role: /);
    expect(errorText(await call(client, 'get_context', {}))).toMatch(
      /^INVALID_ARGUMENTS: sessionId: /,
    );
    expect(await backend.inspect('s')).toBeNull();
    await expect(call(client, 'no_such_tool', {})).rejects.toThrow(/no_such_tool not found/);
  });

  it('search_memory without recall answers RECALL_NOT_CONFIGURED', async () => {
    expect(errorText(await call(client, 'search_memory', { query: 'table' }))).toMatch(
      /^RECALL_NOT_CONFIGURED: /,
    );
  });

  it('compact_session reports a dry run, then compacts so get_context starts with the summary', async () => {
    const turns = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      text: `Step ${i}: the shipment of order ${1000 + i} leaves the Rotterdam depot on day ${i}.`,
    }));
    await call(client, 'append_messages', { sessionId: 'long', messages: turns });
    const dry = await call(client, 'compact_session', { sessionId: 'long', dryRun: true });
    expect(dry.structuredContent).toMatchObject({ compacted: false });
    expect((await backend.inspect('long'))!.hasSnapshot).toBe(false);
    const done = await call(client, 'compact_session', { sessionId: 'long' });
    const result = done.structuredContent as {
      compacted: boolean;
      tokensAfter: number;
      tokensBefore: number;
    };
    expect(result.compacted).toBe(true);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    const context = (await call(client, 'get_context', { sessionId: 'long' }))
      .structuredContent as {
      messages: { parts: { text: string }[] }[];
      tokens: number;
    };
    expect(context.messages[0]!.parts[0]!.text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(context.tokens).toBe(result.tokensAfter);
  });

  it('lists sessions as resources newest first, paged, and reads one as Markdown', async () => {
    for (let i = 0; i < 55; i++) {
      await (
        await backend.open(`s${i}`)
      ).save([{ role: 'user', parts: [{ type: 'text', text: `question ${i}` }] }]);
    }
    // The newest update, a millisecond after the others (sessions updated in one are ordered by id).
    await new Promise((resolve) => setImmediate(resolve));
    while ((await backend.list({ limit: 1 })).items[0]!.updatedAt === new Date().toISOString());
    await (await backend.open('s54')).setMeta('title', 'Latest chat');
    const first = await client.listResources();
    expect(first.resources).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources).toHaveLength(5);
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.resources, ...second.resources];
    expect(new Set(all.map((r) => r.name)).size).toBe(55);
    // Newest first: the description ends with the session's last update.
    const updated = all.map((r) => /updated (\S+)$/.exec(r.description!)![1]!);
    expect(updated).toEqual([...updated].sort().reverse());
    expect(all[0]).toEqual({
      uri: 'memory://sessions/s54',
      name: 's54',
      title: 'Latest chat',
      description: `1 messages stored, updated ${updated[0]}`,
      mimeType: 'text/markdown',
    });

    const read = await client.readResource({ uri: 'memory://sessions/s54' });
    const text = (read.contents[0] as { text: string }).text;
    expect(text).toMatch(/^# Session Latest chat \(s54\)/);
    expect(text).toContain('```\nquestion 54\n```');
    expect(text).not.toContain('The log continues');
    await expect(client.readResource({ uri: 'memory://sessions/missing' })).rejects.toThrow(
      /SESSION_NOT_FOUND/,
    );
  });
});

describe('a long session as a resource', () => {
  it(`shows the first ${MCP_MAX_TRANSCRIPT_MESSAGES} messages and says where the log continues`, async () => {
    const backend = simpleBackend({ capacity: 3000 });
    const total = MCP_MAX_TRANSCRIPT_MESSAGES + 5;
    const saved = await (
      await backend.open('long')
    ).save(Array.from({ length: total }, (_, i) => userMessage(`line ${i}`)));
    const { client, close } = await connect(backend);
    try {
      const read = await client.readResource({ uri: 'memory://sessions/long' });
      const text = (read.contents[0] as { text: string }).text;
      const lastShown = saved.first! + MCP_MAX_TRANSCRIPT_MESSAGES - 1;
      expect(text).toContain(`line ${MCP_MAX_TRANSCRIPT_MESSAGES - 1}\n`);
      expect(text).not.toContain(`line ${MCP_MAX_TRANSCRIPT_MESSAGES}\n`);
      expect(text).toContain(`The log continues after #${lastShown}: 5 more messages`);
    } finally {
      await close();
      await backend.close();
    }
  });
});

describe('createMemoryMcpServer hooks', () => {
  it('authorize refuses a call before it runs, and onToolResult sees every outcome', async () => {
    const backend = simpleBackend({ capacity: 100 });
    const outcomes: MemoryMcpToolOutcome[] = [];
    const { client, close } = await connect(backend, {
      authorize: ({ changes }) => {
        if (changes) throw new MemoryMcpToolError('FORBIDDEN_ROLE', 'read-only token');
      },
      onToolResult: (outcome) => outcomes.push(outcome),
    });
    try {
      const refused = await call(client, 'append_messages', {
        sessionId: 's',
        messages: [{ role: 'user', text: 'x' }],
      });
      expect(errorText(refused)).toBe('FORBIDDEN_ROLE: read-only token');
      expect(await backend.inspect('s')).toBeNull();
      await call(client, 'list_sessions', { resource: 'acme' });
      // A call the schema refuses is still authorised first, and reported.
      const badArgs = await call(client, 'compact_session', { sessionId: 7 });
      expect(errorText(badArgs)).toMatch(/^FORBIDDEN_ROLE: /);
      expect(outcomes).toEqual([
        {
          tool: 'append_messages',
          changes: true,
          sessionId: 's',
          resource: null,
          code: 'FORBIDDEN_ROLE',
        },
        { tool: 'list_sessions', changes: false, sessionId: null, resource: 'acme', code: null },
        {
          tool: 'compact_session',
          changes: true,
          sessionId: null,
          resource: null,
          code: 'FORBIDDEN_ROLE',
        },
      ]);
    } finally {
      await close();
      await backend.close();
    }
  });
});

describe('createMemoryMcpServer on a failing store', () => {
  it('answers an uncoded failure INTERNAL_ERROR without its text and hands it to onError', async () => {
    const backend = simpleBackend({ capacity: 10 });
    const leak = new Error('connect ECONNREFUSED 10.1.2.3:5432');
    backend.list = () => Promise.reject(leak);
    const seen: unknown[] = [];
    const { client, close } = await connect(backend, { onError: (error) => seen.push(error) });
    try {
      const text = errorText(await call(client, 'list_sessions', {}));
      expect(text).toBe(
        'INTERNAL_ERROR: the tool failed unexpectedly; the server logs the details',
      );
      expect(seen).toEqual([leak]);
    } finally {
      await close();
    }
  });
});

describe('search_memory with recall', () => {
  let backend: RecallBackend;
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    backend = withRecall(simpleBackend({ capacity: 100 }), {
      embedder: new HashedNgramEmbedder({ dimensions: 128 }),
      store: new InMemoryVectorStore(128),
    });
    const save = async (id: string, resource: string, text: string) => {
      const store = await backend.open(id);
      await store.setMeta('resource', resource);
      await store.save([{ role: 'user', parts: [{ type: 'text', text }] }]);
    };
    await save('alice.1', 'alice', 'my locker code is 7731');
    await save('alice.2', 'alice', 'the weather in Lisbon is sunny');
    await save('bob.1', 'bob', 'my locker code is 1234');
    await backend.recallIndexer.whenIdle();
    ({ client, close } = await connect(backend));
  });
  afterAll(async () => {
    await close();
    await backend.close();
  });

  const hitsFor = async (args: Record<string, unknown>) =>
    (
      (await call(client, 'search_memory', args)).structuredContent as {
        hits: {
          sessionId: string;
          cursor: number;
          text: string;
          savedAt?: string;
          score: number;
        }[];
      }
    ).hits;

  it('searches every session, best hit first', async () => {
    const hits = await hitsFor({ query: 'locker code', limit: 3 });
    expect(
      hits
        .map((h) => h.sessionId)
        .slice(0, 2)
        .sort(),
    ).toEqual(['alice.1', 'bob.1']);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(hits[0]).toMatchObject({ cursor: expect.any(Number), savedAt: expect.any(String) });
  });

  it('searches one resource or one session', async () => {
    const alice = await hitsFor({ query: 'locker code', resource: 'alice' });
    expect(new Set(alice.map((h) => h.sessionId))).toEqual(new Set(['alice.1', 'alice.2']));
    expect(alice[0]).toMatchObject({ sessionId: 'alice.1', text: 'my locker code is 7731' });
    const bob = await hitsFor({ query: 'locker code', sessionId: 'bob.1' });
    expect(bob.map((h) => h.text)).toEqual(['my locker code is 1234']);
  });

  it('checks its values: a bad session id or limit is a coded error', async () => {
    expect(
      errorText(await call(client, 'search_memory', { query: 'x', sessionId: 'a b' })),
    ).toMatch(/^INVALID_SESSION_ID: /);
    expect(errorText(await call(client, 'search_memory', { query: 'x', limit: 51 }))).toMatch(
      /^INVALID_QUERY: /,
    );
  });
});
