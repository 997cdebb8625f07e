import type { Message } from './api-types';

export type ContentPart = Message['parts'][number];
export type ToolCall = NonNullable<Message['toolCalls']>[number];

/** The text parts of a message joined by new lines (as `textContent` does on the server). */
export function messageText(message: Message): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}

/**
 * An image source that is safe to put in `<img src>`: http(s) URLs and `data:image/...`; anything
 * else (such as `javascript:`) is null and shown as text instead.
 */
export function safeImageSrc(part: ContentPart): string | null {
  if (part.type === 'image_base64') {
    const mime = part.mimeType ?? 'image/png';
    if (!/^image\/[a-z0-9.+-]+$/i.test(mime) || !part.imageBase64) return null;
    if (!/^[A-Za-z0-9+/=\s]*$/.test(part.imageBase64)) return null;
    return `data:${mime};base64,${part.imageBase64.replace(/\s/g, '')}`;
  }
  if (part.type === 'image_url' && part.imageUrl) {
    try {
      const url = new URL(part.imageUrl);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
      if (url.protocol === 'data:' && /^data:image\/[a-z0-9.+-]+[;,]/i.test(part.imageUrl)) {
        return part.imageUrl;
      }
    } catch {
      return null;
    }
  }
  return null;
}

/** Pretty-prints tool-call arguments when they are JSON, else returns them as they are. */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A stable key for comparing messages (pinned messages are copies of logged ones). */
export function messageKey(message: Message): string {
  return JSON.stringify([
    message.role,
    message.parts,
    message.toolCalls ?? null,
    message.toolCallId ?? null,
  ]);
}
