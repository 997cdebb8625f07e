export * from './token-counter';
export * from './summarizer.interface';
export * from './llm.summarizer';
export * from './extractive.summarizer';
export * from './summary-compactor';
export { coverCount } from './compaction-cut';
export * from './openai-compatible.client';
export * from './llm-request.error';
