import DOMPurify from 'dompurify';
import { Marked } from 'marked';

/** The dashboard's own sanitiser (its hook does not touch other users of DOMPurify). */
const purify = DOMPurify(window);
// Links leave the dashboard in a new tab, without a way back to it (no opener, no referrer).
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** GitHub-flavoured Markdown where HTML written in the text stays text, as everywhere else here. */
const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: true,
  renderer: {
    html: ({ text }) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!),
  },
});

/**
 * An assistant's Markdown as sanitised HTML: GitHub-flavoured Markdown (`marked`; HTML in the
 * text is shown as text, not markup), then DOMPurify with only plain HTML kept, in case. Scripts, event handlers, `javascript:` links, styles, forms, frames and
 * images (a remote image would tell its host who reads the session) are removed; what is left is
 * text formatting, lists, tables, code and links.
 */
export function renderMarkdown(text: string): string {
  const html = markdown.parse(text) as string;
  return purify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: [
      'style',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'img',
      'picture',
      'video',
      'audio',
      'iframe',
      'object',
      'embed',
    ],
    FORBID_ATTR: ['style', 'srcset'],
  });
}

/** Whether a text has Markdown worth rendering (so plain answers need no toggle). */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)\s{0,3}(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|```|\|.*\|)|\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)]+\)|(^|\s)_[^_]+_(\s|$)/.test(
    text,
  );
}
