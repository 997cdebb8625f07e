import type { ModelMessage, UIMessage } from 'ai';
import type { MemoryBackend } from '../core/backend.interface';
import { imagePartToUrl, mediaPartFromContent, type MediaContent } from '../core/media-part.codec';
import type { Message } from '../core/message';
import { mergeSection, readSection } from '../core/provider-data-section';
import { AI_SDK_KEY, fromModelMessages, toModelMessages } from './model-message.converter';

/**
 * The most a `UIMessage` may take as JSON to be kept whole next to its model messages (64 KiB);
 * a larger one (big inline files) is rebuilt from them when loaded.
 */
export const MAX_KEPT_UI_MESSAGE_BYTES = 64 * 1024;

/** Options of {@link createChatStore}. */
export interface ChatStoreOptions {
  /** Passed to the SDK's `convertToModelMessages` (tools' `toModelOutput`, data parts). */
  convertOptions?: Parameters<typeof import('ai').convertToModelMessages>[1];
}

/** What {@link createChatStore} returns: the two functions of the AI SDK's message persistence guide. */
export interface ChatStore {
  /** The chat's `UIMessage`s, for `useChat({ messages })` or `streamText`'s `originalMessages`. */
  loadChat(chatId: string): Promise<UIMessage[]>;
  /**
   * Stores the messages of `messages` (the whole chat, as `onFinish` hands it) that are not stored
   * yet, in one save. `idempotencyKey` (a request id) makes a retried request store nothing twice.
   */
  saveChat(chat: {
    chatId: string;
    messages: readonly UIMessage[];
    idempotencyKey?: string;
  }): Promise<void>;
}

/**
 * Chat persistence for the AI SDK's UI (`useChat`) on any of our backends, the session id being
 * the chat id. Each `UIMessage` is stored as our messages (through the SDK's
 * `convertToModelMessages`, so compaction, recall and the other adapters read it) and, up to
 * {@link MAX_KEPT_UI_MESSAGE_BYTES}, whole in the first one's `providerData.aiSdk.ui`, so
 * `loadChat` gives it back as it was saved. A message stored otherwise (a summary, another
 * adapter's) loads as a `UIMessage` built from its text, reasoning, files and tool calls.
 */
export function createChatStore(backend: MemoryBackend, opts: ChatStoreOptions = {}): ChatStore {
  return {
    async loadChat(chatId) {
      const session = await backend.open(chatId);
      return toUiMessages(await session.retrieve());
    },
    async saveChat({ chatId, messages, idempotencyKey }) {
      const session = await backend.open(chatId);
      const stored = new Set((await session.retrieve()).map(uiMessageId));
      const { convertToModelMessages } = await import('ai');
      const batch: Message[] = [];
      for (const ui of messages) {
        if (stored.has(ui.id)) continue;
        const converted = fromModelMessages(
          await convertToModelMessages([ui], opts.convertOptions),
        );
        converted.forEach((message, index) => {
          const data: Record<string, unknown> = { uiMessageId: ui.id };
          if (index === 0 && Buffer.byteLength(JSON.stringify(ui)) <= MAX_KEPT_UI_MESSAGE_BYTES) {
            data.ui = JSON.parse(JSON.stringify(ui)) as unknown;
          }
          mergeSection(message, AI_SDK_KEY, data);
          batch.push(message);
        });
      }
      if (batch.length > 0) await session.save(batch, idempotencyKey ? { idempotencyKey } : {});
    },
  };
}

function aiSdkData(message: Message): Record<string, unknown> {
  return readSection(message.providerData, AI_SDK_KEY);
}

function uiMessageId(message: Message): string | undefined {
  const id = aiSdkData(message).uiMessageId;
  return typeof id === 'string' ? id : undefined;
}

/** Groups stored messages by the `UIMessage` they came from; each group becomes one again. */
function toUiMessages(stored: Message[]): UIMessage[] {
  const out: UIMessage[] = [];
  let group: Message[] = [];
  const flush = (): void => {
    if (group.length === 0) return;
    const kept = aiSdkData(group[0]!).ui as UIMessage | undefined;
    out.push(kept ?? rebuild(group, `stored-${out.length}`));
    group = [];
  };
  for (const message of stored) {
    const id = uiMessageId(message);
    const previous = group[group.length - 1];
    if (!previous || id === undefined || uiMessageId(previous) !== id) flush();
    group.push(message);
  }
  flush();
  return out;
}

/** A `UIMessage` from stored messages that were not saved by `saveChat` (or too large to keep). */
function rebuild(group: Message[], fallbackId: string): UIMessage {
  const id = uiMessageId(group[0]!) ?? fallbackId;
  const model = toModelMessages(group);
  const results = new Map<string, Extract<ModelMessage, { role: 'tool' }>['content'][number]>();
  for (const message of model) {
    if (message.role === 'tool')
      for (const part of message.content) {
        if (part.type === 'tool-result') results.set(part.toolCallId, part);
      }
  }
  const role = group[0]!.role === 'tool' ? 'assistant' : group[0]!.role;
  const parts: UIMessage['parts'] = [];
  for (const message of model) {
    if (message.role === 'tool') continue;
    if (typeof message.content === 'string') {
      parts.push({ type: 'text', text: message.content });
      continue;
    }
    if (message.role === 'assistant') parts.push({ type: 'step-start' });
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          parts.push({ type: part.type, text: part.text });
          break;
        case 'file':
        case 'image': {
          const content = part.type === 'file' ? part.data : part.image;
          const mediaType = part.mediaType ?? 'application/octet-stream';
          const url = imagePartToUrl(
            mediaPartFromContent(content as MediaContent, mediaType, `UIMessage ${id}`),
          );
          parts.push({ type: 'file', mediaType, url });
          break;
        }
        case 'tool-call': {
          const result = results.get(part.toolCallId);
          const base = {
            type: 'dynamic-tool' as const,
            toolName: part.toolName,
            toolCallId: part.toolCallId,
            input: part.input,
          };
          if (result?.type === 'tool-result' && result.output.type.startsWith('error')) {
            const output = result.output as { value?: unknown };
            parts.push({ ...base, state: 'output-error', errorText: String(output.value ?? '') });
          } else if (result?.type === 'tool-result') {
            const output = result.output as { value?: unknown };
            parts.push({ ...base, state: 'output-available', output: output.value });
          } else {
            parts.push({ ...base, state: 'input-available' });
          }
          break;
        }
      }
    }
  }
  return { id, role, parts };
}
