import { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import type { BaseMessage } from '@langchain/core/messages';
import type { MemoryBackend } from '../core/backend.interface';
import type { SessionStore } from '../core/memory.interface';
import { fromBaseMessages, toBaseMessages } from './base-message.converter';

/**
 * A LangChain chat message history on any of our backends, one session per history: for
 * `RunnableWithMessageHistory` (`getMessageHistory: (id) => AgentMemoryChatMessageHistory.open(backend, id)`)
 * and agents' message history. `getMessages` returns the session's context (after compaction, its
 * summary and the messages since), converted losslessly by {@link toBaseMessages}.
 */
export class AgentMemoryChatMessageHistory extends BaseListChatMessageHistory {
  /** LangChain's serialisation namespace. */
  lc_namespace = ['agent_memory', 'langchain'];

  private constructor(
    /** The session these messages live in. */
    readonly sessionId: string,
    private readonly store: SessionStore,
  ) {
    super();
  }

  /** Opens the history of session `sessionId` on `backend`. */
  static async open(
    backend: MemoryBackend,
    sessionId: string,
  ): Promise<AgentMemoryChatMessageHistory> {
    return new AgentMemoryChatMessageHistory(sessionId, await backend.open(sessionId));
  }

  /** The session's context as LangChain messages. */
  async getMessages(): Promise<BaseMessage[]> {
    return toBaseMessages(await this.store.retrieve());
  }

  /** Appends one message. */
  async addMessage(message: BaseMessage): Promise<void> {
    await this.store.save(fromBaseMessages([message]));
  }

  /** Appends `messages` in one atomic save. */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    await this.store.save(fromBaseMessages(messages));
  }

  /** Removes the session's messages, snapshot and metadata. */
  override async clear(): Promise<void> {
    await this.store.clear();
  }
}
