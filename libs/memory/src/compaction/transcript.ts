import type { Message } from '../core/message';

/**
 * A compact plain-text rendering of messages for a summariser: one block per message, tool calls
 * and results on their own lines, images as placeholders, reasoning left out.
 */
export function renderTranscript(messages: readonly Message[]): string {
  return messages.map(renderMessage).join('\n');
}

function renderMessage(message: Message): string {
  const lines: string[] = [];
  const text = message.parts
    .map((part) =>
      part.type === 'text' ? (part.text ?? '') : part.type.startsWith('image') ? '[image]' : '',
    )
    .filter((piece) => piece !== '')
    .join(' ');
  if (message.role === 'tool') {
    lines.push(
      `tool result (${message.toolCallId}${message.toolError ? ', failed' : ''}): ${text}`,
    );
  } else if (text) {
    lines.push(`${message.role}${message.name ? ` (${message.name})` : ''}: ${text}`);
  }
  for (const call of message.toolCalls ?? []) {
    lines.push(`assistant calls ${call.function.name}(${call.function.arguments}) [${call.id}]`);
  }
  return lines.join('\n');
}
