/**
 * `npm run example:long-term -- --user ada --session monday "I am allergic to peanuts"`, then
 * `npm run example:long-term -- --user ada --session friday "Which snacks should I avoid?"`:
 * the second session, new and empty, is given what the first one said. It prints the context the
 * model is given, then answers (an OpenAI-compatible model when `LLM_BASE_URL` is set, else echo).
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import {
  assistantMessage,
  MemoryService,
  OpenAiCompatibleClient,
  textContent,
  userMessage,
  type LlmClient,
  type Message,
} from '@agent-memory/memory';
import { hasRecall } from '@agent-memory/memory/rag';
import { LongTermModule } from './long-term.module';

const USAGE = 'Usage: npm run example:long-term -- --user <id> --session <id> "<message>"';

/** Without an LLM: says how many messages it was given, and whether recall quoted anything. */
const echoModel: LlmClient = {
  async complete(messages: Message[]) {
    const recalled = messages.some(
      (m) => m.role === 'system' && textContent(m).startsWith('Recalled'),
    );
    return {
      message: assistantMessage(
        `(echo model, ${messages.length} messages given${recalled ? ', recall included' : ''})`,
      ),
    };
  },
};

function modelFromEnv(env: NodeJS.ProcessEnv): LlmClient {
  if (!env.LLM_BASE_URL) return echoModel;
  if (!env.LLM_MODEL) throw new TypeError('LLM_MODEL is required when LLM_BASE_URL is set');
  return new OpenAiCompatibleClient({
    baseUrl: env.LLM_BASE_URL,
    apiKey: env.LLM_API_KEY ?? '',
    model: env.LLM_MODEL,
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { user: { type: 'string' }, session: { type: 'string' } },
  });
  const text = positionals.join(' ').trim();
  if (!values.user || !values.session || text === '') throw new TypeError(USAGE);
  const llm = modelFromEnv(process.env);
  if (llm === echoModel) {
    console.log(
      'No LLM configured (set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY for an OpenAI-compatible ' +
        'server); using a built-in echo model.',
    );
  }

  const app = await NestFactory.createApplicationContext(
    LongTermModule.register(process.env.MEMORY_DIR ?? './data/long-term'),
    { logger: ['error', 'warn'] },
  );
  try {
    const memory = app.get(MemoryService);
    // The user is the session's resource: recall searches every session of this user.
    await (await memory.session(values.session)).setMeta('resource', values.user);
    // Wait for the start-up catch-up to embed the earlier sessions (seconds on first load).
    if (hasRecall(memory.backend)) await memory.backend.recallIndexer.whenIdle();

    const { answer } = await memory.runTurn(
      values.session,
      userMessage(text),
      async ({ history, input, signal }) => {
        console.log('--- the model is given:');
        for (const message of [...history, ...input]) {
          console.log(`${message.role}: ${textContent(message)}`);
        }
        const { message } = await llm.complete([...history, ...input], { signal });
        return { answer: textContent(message), messages: [message] };
      },
    );
    console.log(`--- assistant: ${answer}`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
