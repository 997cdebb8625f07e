/**
 * `npm run bench mcp`: what a memory tool call costs through the Model Context Protocol, against
 * the same work done on the store directly (bare). One JSON-file folder, a session of 100
 * messages; the SDK's client calls `get_context` and `append_messages` in process (linked
 * transports), over stdio (`agent-memory mcp` spawned) and over Streamable HTTP (the admin
 * server's `/mcp`: token gate, body parser, a new MCP server per request).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  assistantMessage,
  jsonFileBackend,
  TokenCounter,
  userMessage,
  type Message,
} from '@agent-memory/memory';
import { createMemoryMcpServer } from '@agent-memory/memory/mcp';
import { startApiServer } from '../apps/api/src/api.server';
import { measure, ratio, type BenchResult, type BenchSuite } from './harness';

const TOKEN = 'bench-mcp-admin-token-0123456789';
const CLI = join(__dirname, '..', 'libs', 'memory', 'src', 'cli', 'agent-memory.ts');

function conversation(turns: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(userMessage(`Question ${i}: what changed in the shipment plan for week ${i}?`));
    messages.push(assistantMessage(`Week ${i}: the Rotterdam leg moves a day later; costs hold.`));
  }
  return messages;
}

async function connected(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export const suite: BenchSuite = {
  name: 'MCP tool calls (JSON files, a session of 100 messages)',
  async run() {
    const root = mkdtempSync(join(tmpdir(), 'agent-memory-bench-mcp-'));
    const dir = join(root, 'sessions');
    const backend = jsonFileBackend({ dir });
    await (await backend.open('bench.context')).save(conversation(50));
    const counter = new TokenCounter();

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const inProcessServer = createMemoryMcpServer(backend, { tokenCounter: counter });
    await inProcessServer.connect(serverSide);
    const inProcess = await connected(clientSide);
    const stdio = await connected(
      new StdioClientTransport({
        command: process.execPath,
        args: ['-r', '@swc-node/register', CLI, 'mcp', '--backend', 'jsonfile', '--dir', dir],
        cwd: join(__dirname, '..'),
        stderr: 'ignore',
      }),
    );
    const api = await startApiServer({
      env: {
        PORT: '0',
        HOST: '127.0.0.1',
        MEMORY_BACKEND: 'jsonfile',
        MEMORY_DIR: dir,
        MEMORY_ADMIN_TOKEN: TOKEN,
      },
      logger: false,
    });
    const http = await connected(
      new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const clients: [string, Client][] = [
      ['MCP in process', inProcess],
      ['MCP stdio', stdio],
      ['MCP HTTP /mcp', http],
    ];

    const results: BenchResult[] = [];
    try {
      const getContext = 'get_context (100 messages)';
      results.push(
        await measure(getContext, 'store + token count (bare)', async () => {
          const messages = await (await backend.open('bench.context')).retrieve();
          return counter.countAsync(messages);
        }),
      );
      for (const [subject, client] of clients) {
        results.push(
          await measure(getContext, subject, () =>
            client.callTool({ name: 'get_context', arguments: { sessionId: 'bench.context' } }),
          ),
        );
      }
      const append = 'append_messages (1 message)';
      let n = 0;
      results.push(
        await measure(append, 'store.save (bare)', async () =>
          (await backend.open('bench.append.bare')).save([userMessage(`note ${n++}`)]),
        ),
      );
      for (const [subject, client] of clients) {
        const sessionId = `bench.append.${subject.split(' ')[1]}`;
        results.push(
          await measure(append, subject, () =>
            client.callTool({
              name: 'append_messages',
              arguments: { sessionId, messages: [{ role: 'user', text: `note ${n++}` }] },
            }),
          ),
        );
      }
    } finally {
      await Promise.all([inProcess.close(), stdio.close(), http.close()]);
      await inProcessServer.close();
      await api.app.close();
      await backend.close();
      rmSync(root, { recursive: true, force: true });
    }
    const mean = (caseName: string, subject: string) =>
      results.find((r) => r.case === caseName && r.subject === subject)!.meanMs;
    const notes = ['get_context (100 messages)', 'append_messages (1 message)'].map((caseName) => {
      const bare = results.find((r) => r.case === caseName && r.subject.endsWith('(bare)'))!;
      const over = clients
        .map(([subject]) => `${subject} ${ratio(mean(caseName, subject), bare.meanMs)}`)
        .join(', ');
      return `${caseName}, mean time over the bare store's: ${over}.`;
    });
    return { results, notes };
  },
};
