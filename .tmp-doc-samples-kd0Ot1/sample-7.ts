
import { jsonFileBackend, userMessage, assistantMessage } from '@agent-memory/memory';

const backend = jsonFileBackend({ dir: './data/sessions' });
const session = await backend.open('support.ticket-42');
const history = await session.retrieve(); // summary + pinned + messages after the snapshot
await session.save([userMessage('hi'), assistantMessage('hello!')]);

export {};
