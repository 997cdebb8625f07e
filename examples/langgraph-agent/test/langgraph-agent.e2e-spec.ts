/**
 * The LangGraph example: a run that calls the tool, then a second run in a new process that goes
 * on with the same thread from the store (PostgreSQL, then JSON files), against a local fake
 * model; the thread is a session.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '@agent-memory/test-support/fake-llm.server';
import { runExample } from '@agent-memory/test-support/example-process';
import { TestSchemas } from '@agent-memory/test-support/postgres';

describe('LangGraph agent example', () => {
  const schemas = new TestSchemas('lg_example');
  const folder = mkdtempSync(join(tmpdir(), 'agent-memory-lg-example-'));
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(async () => {
    await llm.close();
    await schemas.cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  const stores: [string, () => Record<string, string>][] = [
    ['PostgreSQL', () => ({ DATABASE_URL: schemas.url, MEMORY_PG_TABLE: schemas.nextTable() })],
    ['JSON files', () => ({ MEMORY_BACKEND: 'jsonfile', MEMORY_DIR: join(folder, 'sessions') })],
  ];

  it.each(stores)(
    'calls the tool, and a new process goes on with the thread (%s)',
    async (_, storeEnv) => {
      const env = storeEnv();
      const say = (text: string) =>
        runExample('langgraph-agent', ['--thread', 'trip-1', text], {
          env: { ...env, LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', LLM_MODEL: 'fake' },
        });
      const seen = llm.requests.length;
      llm.replyWith({
        toolCalls: [
          {
            id: 'call-1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' },
          },
        ],
      });
      llm.reply('It is 21 °C and sunny in Lisbon.');
      const first = await say('What is the weather in Lisbon?');
      expect(first.stderr).toBe('');
      expect(first.stdout).toContain('It is 21 °C and sunny in Lisbon.');
      expect(first.stdout).toContain('--- session trip-1: 4 messages');
      // The tool ran: its result went back to the model.
      const toolResult = llm.requests[seen + 1]!.body.messages.find((m) => m.role === 'tool');
      expect(toolResult).toMatchObject({ tool_call_id: 'call-1', content: '21 °C, sunny' });

      llm.reply('No coat needed.');
      const second = await say('Should I pack a coat?');
      expect(second.stdout).toContain('No coat needed.');
      expect(second.stdout).toContain('--- session trip-1: 6 messages');
      // The second process gave the model the whole thread, read back from the store.
      const given = llm.requests[seen + 2]!.body.messages.map((m) => m.role);
      expect(given).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    },
    120_000,
  );
});
