import { userMessage, jsonFileBackend } from '@agent-memory/memory';
import OpenAI from 'openai';
import { fromChatCompletionMessage, toChatCompletionMessages } from '@agent-memory/memory/openai';

const openai = new OpenAI();
const session = await jsonFileBackend({ dir: './sessions' }).open('user-42');
const input = userMessage('What is the weather in Oslo?');
const messages = toChatCompletionMessages([...(await session.retrieve()), input]);
const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
await session.save([input, fromChatCompletionMessage(completion.choices[0]!.message)]);

export {};
