import { DEFAULT_SUMMARY_MAX_TOKENS } from '../core/defaults';
import type { CallOptions } from '../core/memory.interface';
import type { LlmClient } from '../core/llm-client.interface';
import { systemMessage, textContent, userMessage } from '../core/message';
import { LlmRequestError } from './llm-request.error';
import type { Summarizer, SummaryInput } from './summarizer.interface';
import { renderTranscript } from './transcript';

const INSTRUCTIONS = [
  'You maintain the running summary of a conversation between a user and an AI assistant.',
  'You get the previous summary (if any) and the messages that happened after it.',
  'Write the updated summary: keep the facts, the user preferences, the progress made, decisions,',
  'and open loops (questions and tasks not yet resolved). When a fact changed, keep only its',
  'latest state. Drop small talk. Be concise and concrete; use short bullet points under the',
  'headings Facts, Preferences, Progress, Open loops. Answer with the summary only.',
].join(' ');

/** Options of {@link LlmSummarizer}. */
export interface LlmSummarizerOptions {
  /** Upper bound for the summary's length, in tokens. Default {@link DEFAULT_SUMMARY_MAX_TOKENS}. */
  maxTokens?: number;
}

/** Summarises with a chat model, updating the previous summary rather than starting over. */
export class LlmSummarizer implements Summarizer {
  constructor(
    private readonly llm: LlmClient,
    private readonly options: LlmSummarizerOptions = {},
  ) {}

  async summarize(input: SummaryInput, opts?: CallOptions): Promise<string> {
    const request = [
      input.previous ? `Previous summary:\n${input.previous}` : 'There is no previous summary.',
      `New messages:\n${renderTranscript(input.messages)}`,
    ].join('\n\n');
    const { message } = await this.llm.complete(
      [systemMessage(INSTRUCTIONS), userMessage(request)],
      {
        signal: opts?.signal,
        maxTokens: this.options.maxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS,
      },
    );
    const summary = textContent(message).trim();
    if (!summary) throw new LlmRequestError('the LLM answered with an empty summary');
    return summary;
  }
}
