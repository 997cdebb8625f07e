import type { UIMessage } from 'ai';
import { assistantMessage, simpleBackend, userMessage } from '..';
import { createChatStore } from '.';

const chat: UIMessage[] = [
  {
    id: 'u1',
    role: 'user',
    metadata: { sentAt: '2026-12-04T12:00:00Z' },
    parts: [
      { type: 'text', text: 'What is in this picture, and the weather in Oslo?' },
      { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,aGVsbG8=' },
    ],
  },
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      {
        type: 'reasoning',
        text: 'Two questions.',
        state: 'done',
        providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA' } },
      },
      { type: 'text', text: 'A cat. Checking the weather.', state: 'done' },
      {
        type: 'tool-weather',
        toolCallId: 'call_1',
        state: 'output-available',
        input: { city: 'Oslo' },
        output: { sky: 'rain' },
      },
      { type: 'step-start' },
      { type: 'text', text: 'Rain in Oslo.', state: 'done' },
    ],
  },
];

describe('AI SDK chat persistence', () => {
  it('loads the UI messages it saved, storing each once and in our message model', async () => {
    const backend = simpleBackend({ capacity: 100 });
    const chats = createChatStore(backend);
    await chats.saveChat({ chatId: 'chat-1', messages: chat.slice(0, 1) });
    await chats.saveChat({ chatId: 'chat-1', messages: chat });
    await chats.saveChat({ chatId: 'chat-1', messages: chat });

    expect(await chats.loadChat('chat-1')).toEqual(chat);
    const stored = await (await backend.open('chat-1')).retrieve();
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored[1]!.toolCalls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'weather', arguments: '{"city":"Oslo"}' },
      },
    ]);
    expect(stored[2]).toMatchObject({ toolCallId: 'call_1', parts: [{ text: '{"sky":"rain"}' }] });
    await backend.close();
  });

  it('loads messages saved without it as UI messages', async () => {
    const backend = simpleBackend({ capacity: 100 });
    await (await backend.open('chat-2')).save([userMessage('hi'), assistantMessage('hello')]);
    expect(await createChatStore(backend).loadChat('chat-2')).toEqual([
      { id: 'stored-0', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      { id: 'stored-1', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] },
    ]);
    await backend.close();
  });
});
