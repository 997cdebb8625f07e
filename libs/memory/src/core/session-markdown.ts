import type { SessionInfo } from './backend.interface';
import type { Entry, StoredSnapshot } from './memory.interface';
import { textContent, type Message } from './message';

/** What {@link sessionMarkdown} renders: a session's counts, snapshot and (part of) its log. */
export interface SessionMarkdownInput {
  info: SessionInfo;
  snapshot: StoredSnapshot | null;
  /** The stored log to show, oldest first; an entry at or before `snapshot.upTo` is marked covered. */
  entries: readonly Entry[];
  /** ISO 8601 time of an export, shown in the header when given. */
  exportedAt?: string;
  /** A closing paragraph (Markdown), such as where a cut log continues. */
  footer?: string;
}

/** A fence longer than any run of backticks in `text`, so message text cannot close it. */
function fenced(text: string, infoString = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${infoString}\n${text}\n${fence}`;
}

function messageMarkdown(message: Message): string {
  const lines: string[] = [];
  const text = textContent(message);
  if (text) lines.push(fenced(text));
  for (const part of message.parts) {
    if (part.type === 'image_url') lines.push(`*image:* ${part.imageUrl ?? ''}`);
    if (part.type === 'image_base64') {
      lines.push(`*image (${part.mimeType ?? 'unknown type'}, inline)*`);
    }
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

function heading(message: Message, where: string): string {
  const who =
    message.role === 'tool'
      ? `tool result${message.toolCallId ? ` for ${message.toolCallId}` : ''}${message.toolError ? ' (error)' : ''}`
      : message.role;
  return `### ${who}${where}`;
}

/**
 * A session as Markdown, for people and for models: a header with its counts and metadata, the
 * snapshot's summary and pinned messages, then the given log with each message's cursor and save
 * time. Message text is fenced, so nothing in it is read as Markdown.
 */
export function sessionMarkdown(input: SessionMarkdownInput): string {
  const { info, snapshot } = input;
  const out = [
    `# Session ${info.meta.title ? `${info.meta.title} (${info.id})` : info.id}`,
    '',
    `- messages ever saved: ${info.messages}`,
    `- messages stored: ${info.stored}`,
    `- last update: ${info.updatedAt}`,
    ...(input.exportedAt ? [`- exported: ${input.exportedAt}`] : []),
  ];
  const meta = Object.entries(info.meta);
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
      out.push('', heading(pinned, ' · pinned'), '', messageMarkdown(pinned));
    }
  }
  out.push('', '## Log');
  for (const entry of input.entries) {
    const at = entry.savedAt ? ` · ${entry.savedAt}` : '';
    const covered =
      snapshot !== null && entry.cursor <= snapshot.upTo ? ' · covered by the snapshot' : '';
    out.push('', heading(entry.message, ` · #${entry.cursor}${at}${covered}`), '');
    out.push(messageMarkdown(entry.message));
  }
  if (input.footer) out.push('', input.footer);
  return `${out.join('\n')}\n`;
}
