/**
 * An agent SDK's own loop drives the memory tools: the OpenAI Agents SDK's `run()` with
 * `MCPServerStdio` spawning `agent-memory mcp` on a JSON-file folder, against a real local
 * OpenAI-compatible server whose scripted answers call a tool, then answer from its result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { Agent, MCPServerStdio, OpenAIProvider, run, setTracingDisabled } from '@openai/agents';
import { jsonFileBackend, textContent, userMessage, type MemoryBackend } from '..';
import {
  AGENT_MEMORY_CLI,
  REPO_ROOT,
  cliBaseEnv,
} from '@agent-memory/test-support/agent-memory-cli';

setTracingDisabled(true);

interface WireTool {
  type: string;
  function: { name: string; description: string; parameters: { properties: object } };
}

describe('an OpenAI Agents SDK loop over agent-memory mcp (stdio)', () => {
  let llm: FakeLlm;
  let dir: string;
  let backend: MemoryBackend;
  let memory: MCPServerStdio;
  beforeAll(async () => {
    llm = await startFakeLlm();
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-mcp-loop-'));
    backend = jsonFileBackend({ dir });
    memory = new MCPServerStdio({
      name: 'memory',
      command: process.execPath,
      args: [
        '-r',
        '@swc-node/register',
        AGENT_MEMORY_CLI,
        'mcp',
        '--backend',
        'jsonfile',
        '--dir',
        dir,
      ],
      cwd: REPO_ROOT,
      env: cliBaseEnv(),
    });
    await memory.connect();
  }, 60_000);
  afterAll(async () => {
    await memory?.close();
    await backend?.close();
    await llm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function agent(): Promise<Agent> {
    const provider = new OpenAIProvider({ apiKey: 'k', baseURL: llm.baseUrl, useResponses: false });
    return new Agent({
      name: 'Assistant',
      instructions: 'Use the memory tools to remember and recall.',
      model: await provider.getModel('fake-model'),
      mcpServers: [memory],
    });
  }

  it('reads an earlier conversation through read_messages and answers from it', async () => {
    await (await backend.open('trip.porto')).save([userMessage('My gate code is 4471.')]);
    const before = llm.requests.length;
    llm.replyWith({
      toolCalls: [
        {
          id: 'call_read',
          type: 'function',
          function: { name: 'read_messages', arguments: '{"sessionId":"trip.porto"}' },
        },
      ],
    });
    llm.reply('Your gate code is 4471.');

    const result = await run(await agent(), 'What was my gate code?');

    expect(result.finalOutput).toBe('Your gate code is 4471.');
    const [first, second] = llm.requests.slice(before).map((r) => r.body);
    // The model was offered the six memory tools with their JSON Schema.
    const tools = (first!.tools as WireTool[]).map((t) => t.function);
    expect(tools.map((t) => t.name).sort()).toEqual([
      'append_messages',
      'compact_session',
      'get_context',
      'list_sessions',
      'read_messages',
      'search_memory',
    ]);
    expect(tools.find((t) => t.name === 'read_messages')!.parameters.properties).toHaveProperty(
      'sessionId.description',
    );
    // The tool's result, the stored message, went back to the model.
    const toolMessage = second!.messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_read');
    expect(JSON.stringify(toolMessage.content)).toContain('My gate code is 4471.');
  }, 60_000);

  it('records a note through append_messages; a bad id comes back to the model as a coded error', async () => {
    const before = llm.requests.length;
    llm.replyWith({
      toolCalls: [
        {
          id: 'call_bad',
          type: 'function',
          function: {
            name: 'append_messages',
            arguments: '{"sessionId":"notes about me","messages":[{"role":"user","text":"x"}]}',
          },
        },
      ],
    });
    llm.replyWith({
      toolCalls: [
        {
          id: 'call_note',
          type: 'function',
          function: {
            name: 'append_messages',
            arguments:
              '{"sessionId":"notes.me","messages":[{"role":"user","text":"Prefers aisle seats"}]}',
          },
        },
      ],
    });
    llm.reply('Noted.');

    const result = await run(await agent(), 'Remember that I prefer aisle seats.');

    expect(result.finalOutput).toBe('Noted.');
    const third = llm.requests[before + 1]!.body;
    const refused = third.messages.find((m) => m.tool_call_id === 'call_bad')!;
    expect(JSON.stringify(refused.content)).toContain('INVALID_SESSION_ID: ');
    const stored = await (await backend.open('notes.me')).retrieve();
    expect(stored.map(textContent)).toEqual(['Prefers aisle seats']);
    const ids = (await backend.list({})).items.map((info) => info.id);
    expect(ids.sort()).toEqual(['notes.me', 'trip.porto']);
  }, 60_000);
});
