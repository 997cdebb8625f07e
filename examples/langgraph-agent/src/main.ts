/**
 * `npm run example:langgraph -- --thread trip-1 "What is the weather in Lisbon?"`, then
 * `npm run example:langgraph -- --thread trip-1 "And should I pack a coat?"`: a LangGraph agent
 * with a tool, whose thread is kept in PostgreSQL by `MemoryCheckpointSaver`, so the second run
 * (another process) goes on with the conversation. The thread is also the session `trip-1`: the
 * dashboard, `retrieve()` and export show it. Needs `DATABASE_URL` (or `MEMORY_BACKEND=jsonfile`
 * with `MEMORY_DIR`: the store is chosen by its driver, as the servers choose it) and an
 * OpenAI-compatible model (`LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`).
 */
import { parseArgs } from 'node:util';
import { ChatOpenAI } from '@langchain/openai';
import { HumanMessage } from '@langchain/core/messages';
import { BUILT_IN_DRIVERS, requireDriver, SettingsReader } from '@agent-memory/memory';
import { MemoryCheckpointSaver } from '@agent-memory/memory/langgraph';
import { agentGraph } from './agent.graph';

const USAGE = 'Usage: npm run example:langgraph -- --thread <id> "<message>"';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { thread: { type: 'string' } },
    allowPositionals: true,
  });
  const text = positionals.join(' ').trim();
  if (!values.thread || !text) {
    console.error(USAGE);
    return 2;
  }
  if (!process.env.LLM_BASE_URL) {
    console.error('Set LLM_BASE_URL (with LLM_API_KEY and LLM_MODEL).');
    return 2;
  }
  // PostgreSQL unless MEMORY_BACKEND names another store; its variables as the servers read them.
  const driver = requireDriver(BUILT_IN_DRIVERS, process.env.MEMORY_BACKEND || 'postgres');
  const settings = new SettingsReader(process.env);
  const storeSettings = driver.readSettings(settings);
  if (settings.problems.length > 0) {
    console.error(settings.problems.join('\n'));
    return 2;
  }
  const backend = await driver.create(storeSettings);
  try {
    const model = new ChatOpenAI({
      model: process.env.LLM_MODEL || 'gpt-4o-mini',
      apiKey: process.env.LLM_API_KEY || 'none',
      configuration: { baseURL: process.env.LLM_BASE_URL },
      maxRetries: 0,
    });
    const graph = agentGraph(model, await MemoryCheckpointSaver.open(backend));
    const config = { configurable: { thread_id: values.thread } };
    const result = await graph.invoke({ messages: [new HumanMessage(text)] }, config);
    console.log(String(result.messages.at(-1)!.content));
    const session = await (await backend.open(values.thread)).retrieve();
    console.log(`--- session ${values.thread}: ${session.length} messages`);
    return 0;
  } finally {
    await backend.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
