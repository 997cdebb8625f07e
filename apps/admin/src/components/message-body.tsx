import type { Message } from '../lib/api-types';
import { MarkdownText } from './markdown-text';
import { prettyArguments, safeImageSrc, type ToolCall } from '../lib/message-view';

/** One tool call, folded, with its result inside (when known) and an error mark. */
export function ToolCallCard({ call, result }: { call: ToolCall; result?: Message }) {
  const failed = result?.toolError === true;
  const resultText = result?.parts.map((part) => part.text ?? '').join('\n');
  return (
    <details className={`tool-call${failed ? ' tool-call-error' : ''}`}>
      <summary>
        <span className="tool-icon" aria-hidden="true">
          ƒ
        </span>
        <code className="tool-name">{call.function.name}</code>
        <span className="tool-args-preview mono">{call.function.arguments}</span>
        {result === undefined ? (
          <span className="badge badge-muted">no result</span>
        ) : failed ? (
          <span className="badge badge-error">error</span>
        ) : (
          <span className="badge badge-ok">result</span>
        )}
      </summary>
      <div className="tool-body">
        <div className="tool-label">
          Arguments <span className="muted mono">{call.id}</span>
        </div>
        <pre className="pre">{prettyArguments(call.function.arguments)}</pre>
        {result && (
          <>
            <div className="tool-label">{failed ? 'Error' : 'Result'}</div>
            <pre className={`pre${failed ? ' pre-error' : ''}`}>{resultText}</pre>
          </>
        )}
      </div>
    </details>
  );
}

/**
 * A message's content: text parts, image thumbnails, reasoning folded, tool calls folded with
 * their results. Text is shown as text, except an assistant's with `markdown` on: formatted, from
 * sanitised HTML ({@link MarkdownText}).
 */
export function MessageBody({
  message,
  results,
  markdown = false,
}: {
  message: Message;
  /** Tool results by tool call id, to fold into the calls. */
  results?: ReadonlyMap<string, Message>;
  /** Show an assistant's text parts as formatted Markdown. Default off. */
  markdown?: boolean;
}) {
  const formatted = markdown && message.role === 'assistant';
  return (
    <div className="message-body">
      {message.parts.map((part, index) => {
        switch (part.type) {
          case 'text':
            return formatted ? (
              <MarkdownText key={index} text={part.text ?? ''} />
            ) : (
              <div key={index} className="message-text">
                {part.text}
              </div>
            );
          case 'reasoning':
            return (
              <details key={index} className="reasoning">
                <summary>Reasoning</summary>
                <div className="message-text">{part.text}</div>
              </details>
            );
          case 'redacted_reasoning':
            return (
              <div key={index} className="reasoning-redacted muted">
                Reasoning (redacted by the provider)
              </div>
            );
          case 'image_url':
          case 'image_base64': {
            const src = safeImageSrc(part);
            return src ? (
              <a key={index} href={src} target="_blank" rel="noreferrer noopener" className="thumb">
                <img src={src} alt="image attached to the message" loading="lazy" />
              </a>
            ) : (
              <div key={index} className="muted">
                image not shown: {part.imageUrl ?? part.mimeType ?? 'unknown source'}
              </div>
            );
          }
          default:
            return null;
        }
      })}
      {message.toolCalls?.map((call) => (
        <ToolCallCard key={call.id} call={call} result={results?.get(call.id)} />
      ))}
      <ProviderData message={message} />
    </div>
  );
}

/**
 * The fields an agent SDK kept beyond the model (`providerData` of the message and of its parts),
 * folded: they are for debugging, not for reading the conversation.
 */
export function ProviderData({ message }: { message: Message }) {
  const parts = message.parts.flatMap((part, index) =>
    part.providerData ? [[`parts[${index}]`, part.providerData] as const] : [],
  );
  if (!message.providerData && parts.length === 0) return null;
  const shown = {
    ...(message.providerData ? { message: message.providerData } : {}),
    ...Object.fromEntries(parts),
  };
  return (
    <details className="provider-data">
      <summary className="muted">Provider data</summary>
      <pre className="pre">{JSON.stringify(shown, null, 2)}</pre>
    </details>
  );
}
