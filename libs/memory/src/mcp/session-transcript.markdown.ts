import type { Entry, StoredSnapshot } from '../core/memory.interface';
import { textContent, type Message } from '../core/message';
import type { SessionInfo } from '../core/backend.interface';

/** A fence longer than any run of backticks in `text`, so message text cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

function messageBody(message: Message): string {
  const lines: string[] = [];
  const text = textContent(message);
  if (text) lines.push(fenced(text));
  for (const part of message.parts) {
    if (part.type === 'image_url') lines.push(`*image:* ${part.imageUrl ?? ''}`);
    if (part.type === 'image_base64') lines.push(`*image (${part.mimeType ?? 'unknown type'})*`);
  }
  for (const call of message.toolCalls ?? []) {
    lines.push(
      `*tool call* \`${call.function.name}\` (${call.id}):\n\n${fenced(call.function.arguments)}`,
    );
  }
  return lines.join('\n\n');
}

function heading(message: Message, where: string): string {
  const who =
    message.role === 'tool'
      ? `tool result${message.toolCallId ? ` for ${message.toolCallId}` : ''}${message.toolError ? ' (error)' : ''}`
      : message.role;
  return `### ${who}${where}`;
}

/**
 * A session as Markdown for the `memory://sessions/{sessionId}` resource: its counts and metadata,
 * the snapshot's summary and pinned messages, then the kept log with each message's cursor (when
 * `truncated`, a closing line says where the log continues).
 * Message text is fenced, so nothing in it is read as Markdown.
 */
export function sessionTranscriptMarkdown(
  info: SessionInfo,
  snapshot: StoredSnapshot | null,
  entries: readonly Entry[],
  truncated = false,
): string {
  const out = [
    `# Session ${info.meta.title ? `${info.meta.title} (${info.id})` : info.id}`,
    '',
    `- messages ever saved: ${info.messages}`,
    `- messages stored: ${info.stored}`,
    `- last update: ${info.updatedAt}`,
  ];
  const meta = Object.entries(info.meta);
  if (meta.length > 0) {
    out.push('', '## Metadata', '', ...meta.map(([k, v]) => `- \`${k}\`: ${JSON.stringify(v)}`));
  }
  if (snapshot) {
    out.push('', `## Summary (covers up to #${snapshot.upTo})`, '', fenced(snapshot.summary));
    for (const pinned of snapshot.pinned ?? []) {
      out.push('', heading(pinned, ' · pinned'), '', messageBody(pinned));
    }
  }
  out.push('', '## Log');
  for (const entry of entries) {
    const covered = snapshot !== null && entry.cursor <= snapshot.upTo ? ' · covered' : '';
    const at = entry.savedAt ? ` · ${entry.savedAt}` : '';
    out.push('', heading(entry.message, ` · #${entry.cursor}${at}${covered}`), '');
    out.push(messageBody(entry.message));
  }
  if (truncated) {
    const last = entries.at(-1)?.cursor;
    out.push(
      '',
      `*The log continues after #${last}: ${info.stored - entries.length} more messages (the tool read_messages with after ${last} reads them).*`,
    );
  }
  return `${out.join('\n')}\n`;
}
