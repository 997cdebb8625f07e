import { useMemo } from 'react';
import { renderMarkdown } from '../lib/render-markdown';

/** Markdown shown formatted; the HTML is sanitised by {@link renderMarkdown} before it is set. */
export function MarkdownText({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="message-text markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
