import { createOpenAI } from '@ai-sdk/openai';
import type { ConfigService } from '@nestjs/config';
import type { LanguageModel } from 'ai';

/** The injection token of the chat's `LanguageModel`. */
export const CHAT_MODEL = Symbol('CHAT_MODEL');

/**
 * An OpenAI-compatible server's Chat Completions model, from `LLM_BASE_URL`, `LLM_MODEL` and
 * `LLM_API_KEY` (any server speaking the API: OpenAI, Ollama, vLLM, LiteLLM).
 */
export function chatModelFrom(config: ConfigService): LanguageModel {
  return createOpenAI({
    baseURL: config.getOrThrow<string>('LLM_BASE_URL'),
    apiKey: config.get<string>('LLM_API_KEY', ''),
  }).chat(config.getOrThrow<string>('LLM_MODEL'));
}
