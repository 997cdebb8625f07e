import { textContent, type Message } from '@agent-memory/memory';
import type { SessionExport } from '@agent-memory/api-contract';

/** A fence longer than any run of backticks in `text`, so message text cannot close it. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

function messageMarkdown(message: Message): string {
  const lines: string[] = [];
  const text = textContent(message);
  if (text) lines.push(fenced(text));
  for (const part of message.parts) {
    if (part.type === 'image_url') lines.push(`*image:* ${part.imageUrl ?? ''}`);
    if (part.type === 'image_base64')
      lines.push(`*image (${part.mimeType ?? 'unknown type'}, inline)*`);
    if (part.type === 'reasoning' && part.text) lines.push(`*reasoning:*\n\n${fenced(part.text)}`);
    if (part.type === 'redacted_reasoning') lines.push('*reasoning (redacted)*');
  }
  for (const call of message.toolCalls ?? []) {
    lines.push(
      `*tool call* \`${call.function.name}\` (${call.id}):\n\n${fenced(call.function.arguments, 'json')}`,
    );
  }
  return lines.join('\n\n');
}

function heading(message: Message, cursor: number | null, covered: boolean): string {
  const who =
    message.role === 'tool'
      ? `tool result${message.toolCallId ? ` for ${message.toolCallId}` : ''}${message.toolError ? ' (error)' : ''}`
      : message.role;
  const where = cursor === null ? '' : ` · #${cursor}`;
  return `### ${who}${where}${covered ? ' · covered by the snapshot' : ''}`;
}

/**
 * Renders an exported session as Markdown: a header with its counts and metadata, the snapshot's
 * summary and pinned messages, then the stored log. Message text is fenced, so nothing in it is
 * read as Markdown.
 */
export function sessionExportMarkdown(doc: SessionExport): string {
  const { session, snapshot } = doc;
  const out: string[] = [
    `# Session ${session.meta.title ? `${session.meta.title} (${session.id})` : session.id}`,
    '',
    `- messages ever saved: ${session.messages}`,
    `- messages stored: ${session.stored}`,
    `- last update: ${session.updatedAt}`,
    `- exported: ${doc.exportedAt}`,
  ];
  const meta = Object.entries(session.meta);
  if (meta.length > 0) {
    out.push(
      '',
      '## Metadata',
      '',
      ...meta.map(([key, value]) => `- \`${key}\`: ${JSON.stringify(value)}`),
    );
  }
  if (snapshot) {
    out.push(
      '',
      `## Snapshot (covers up to #${snapshot.upTo}, made ${snapshot.createdAt})`,
      '',
      fenced(snapshot.summary),
    );
    for (const pinned of snapshot.pinned ?? []) {
      out.push('', `${heading(pinned, null, false)} · pinned`, '', messageMarkdown(pinned));
    }
  }
  out.push('', '## Log');
  for (const entry of doc.messages) {
    out.push(
      '',
      heading(entry.message, entry.cursor, entry.covered),
      '',
      messageMarkdown(entry.message),
    );
  }
  return `${out.join('\n')}\n`;
}
