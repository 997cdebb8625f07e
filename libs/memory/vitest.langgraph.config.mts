import { defineConfig } from 'vitest/config';

/**
 * LangGraph's own checkpointer suite (`@langchain/langgraph-checkpoint-validation`) on
 * `MemoryCheckpointSaver` over every store: it is written for vitest, so it runs here rather
 * than under jest (`npm run test:langgraph`, part of `npm test`).
 */
export default defineConfig({
  test: {
    root: import.meta.dirname,
    environment: 'node',
    // The suite calls describe/it/beforeAll as globals.
    globals: true,
    include: ['src/langgraph/**/*.validation.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
