declare const apiKey: string;
declare const session: import('@agent-memory/memory').SessionStore;
import {
  SummaryCompactor,
  LlmSummarizer,
  OpenAiCompatibleClient,
  ExtractiveSummarizer,
} from '@agent-memory/memory';

const llm = new OpenAiCompatibleClient({
  baseUrl: 'https://api.openai.com/v1',
  apiKey,
  model: 'gpt-4o-mini',
});
const compactor = new SummaryCompactor(new LlmSummarizer(llm), { keepRecent: 20 }); // or new ExtractiveSummarizer()
const result = await compactor.compact(session, { thresholdTokens: 150_000 });
// { compacted, reason?: 'below-threshold' | 'nothing-to-cover' | 'no-gain' | 'conflict', upTo, tokensBefore, tokensAfter, snapshot }

export {};
