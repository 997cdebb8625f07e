import { jsonFileBackend } from '@agent-memory/memory';
import { generateText, type LanguageModel } from 'ai';
import { fromModelMessages, toModelMessages } from '@agent-memory/memory/ai-sdk';

declare const model: LanguageModel;
const session = await jsonFileBackend({ dir: './sessions' }).open('user-42');
const input = { role: 'user' as const, content: 'What is the weather in Oslo?' };
const history = toModelMessages(await session.retrieve());
const { text, response } = await generateText({ model, messages: [...history, input] });
await session.save(fromModelMessages([input, ...response.messages]));
console.log(text);

export {};
