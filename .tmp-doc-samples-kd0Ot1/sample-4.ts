import { jsonFileBackend } from '@agent-memory/memory';
import type { Runnable } from '@langchain/core/runnables';
import { RunnableWithMessageHistory } from '@langchain/core/runnables';
import { AgentMemoryChatMessageHistory } from '@agent-memory/memory/langchain';

declare const chain: Runnable; // a prompt with a `history` placeholder, piped into a chat model
const backend = jsonFileBackend({ dir: './sessions' });
const chat = new RunnableWithMessageHistory({
  runnable: chain,
  getMessageHistory: (sessionId: string) => AgentMemoryChatMessageHistory.open(backend, sessionId),
  inputMessagesKey: 'question',
  historyMessagesKey: 'history',
});
await chat.invoke({ question: 'Hi!' }, { configurable: { sessionId: 'user-42' } });

export {};
