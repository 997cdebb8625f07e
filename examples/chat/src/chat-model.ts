import {
  assistantMessage,
  OpenAiCompatibleClient,
  textContent,
  type LlmClient,
  type Message,
} from '@agent-memory/memory';

/** The model the chat talks to, and a line saying which one it is. */
export interface ChatModel {
  llm: LlmClient;
  description: string;
  /** True for the built-in echo model (compaction then uses the offline summariser). */
  isEcho: boolean;
}

export const NO_LLM_NOTICE = `No LLM configured. To talk to a real model, set an OpenAI-compatible server:
  LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=gpt-4o-mini
  (or Ollama: LLM_BASE_URL=http://localhost:11434/v1 LLM_MODEL=llama3.2)
Running the built-in echo model for now.`;

/**
 * A demo model without any LLM: it echoes the latest user message and says how much history it
 * was given, which shows that memory reaches the model.
 */
export class EchoModel implements LlmClient {
  async complete(messages: Message[]): Promise<{ message: Message }> {
    const lastUser = [...messages].reverse().find((message) => message.role === 'user');
    const earlier = messages.filter((message) => message.role !== 'system').length - 1;
    return {
      message: assistantMessage(
        `echo: ${lastUser ? textContent(lastUser) : ''} (I was given ${earlier} earlier messages)`,
      ),
    };
  }
}

/**
 * The OpenAI-compatible model named by `LLM_BASE_URL`, `LLM_API_KEY` and `LLM_MODEL`, or the echo
 * model when `echo` is set or `LLM_BASE_URL` is not.
 * @throws TypeError when `LLM_BASE_URL` is set without `LLM_MODEL`.
 */
export function chatModelFromEnv(env: NodeJS.ProcessEnv, echo: boolean): ChatModel {
  const baseUrl = env.LLM_BASE_URL;
  if (echo || !baseUrl) {
    return { llm: new EchoModel(), description: 'the built-in echo model', isEcho: true };
  }
  const model = env.LLM_MODEL;
  if (!model) throw new TypeError('LLM_MODEL is required when LLM_BASE_URL is set');
  return {
    llm: new OpenAiCompatibleClient({ baseUrl, apiKey: env.LLM_API_KEY ?? '', model }),
    description: `${model} at ${baseUrl}`,
    isEcho: false,
  };
}
