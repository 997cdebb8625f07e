import type { CallOptions } from './memory.interface';
import type { Message } from './message';

/** Token usage as the provider reports it. */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A chat model: the port that compaction and the deprecated `summarization` option call. */
export interface LlmClient {
  complete(
    messages: Message[],
    opts?: CallOptions & { maxTokens?: number },
  ): Promise<{ message: Message; usage?: LlmUsage }>;
}
