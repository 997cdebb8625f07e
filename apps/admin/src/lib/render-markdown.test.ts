import { describe, expect, it } from 'vitest';
import { looksLikeMarkdown, renderMarkdown } from './render-markdown';

/** The rendered HTML as a DOM, to look for what must not be there. */
function dom(markdown: string): HTMLElement {
  const holder = document.createElement('div');
  holder.innerHTML = renderMarkdown(markdown);
  return holder;
}

/** Every attribute of every element, as `tag[name=value]`. */
function attributes(root: HTMLElement): string[] {
  return [...root.querySelectorAll('*')].flatMap((el) =>
    [...el.attributes].map((attr) => `${el.tagName.toLowerCase()}[${attr.name}=${attr.value}]`),
  );
}

describe('renderMarkdown', () => {
  it('formats what an assistant writes: emphasis, lists, code, tables and links', () => {
    const root = dom(
      '**Refund** queued:\n\n1. check the `charge`\n2. email the customer\n\n| order | amount |\n| - | - |\n| 4711 | $649.00 |\n\n[status](https://example.com/orders/4711)',
    );
    expect(root.querySelector('strong')!.textContent).toBe('Refund');
    expect([...root.querySelectorAll('ol li')].map((li) => li.textContent)).toEqual([
      'check the charge',
      'email the customer',
    ]);
    expect(root.querySelector('code')!.textContent).toBe('charge');
    expect(root.querySelector('td')!.textContent).toBe('4711');
    const link = root.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('https://example.com/orders/4711');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(link.getAttribute('target')).toBe('_blank');
  });

  it('neutralises scripts, event handlers, javascript: links and other injected HTML', () => {
    const hostile = [
      '<script>window.__pwned = 1</script>',
      '<img src=x onerror="window.__pwned = 2">',
      '<svg onload="window.__pwned = 3"><circle r="1"/></svg>',
      '<iframe src="https://evil.example"></iframe>',
      '<a href="javascript:window.__pwned = 4">click</a>',
      '[click too](javascript:window.__pwned=5)',
      '<div style="position:fixed;inset:0" onclick="window.__pwned = 6">cover</div>',
      '<form action="https://evil.example"><input name="token"><button>send</button></form>',
      '<style>body { display: none }</style>',
      '![tracker](https://evil.example/pixel.png)',
      '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned = 7">',
    ].join('\n\n');
    const root = dom(hostile);
    for (const tag of [
      'script',
      'img',
      'svg',
      'iframe',
      'form',
      'input',
      'button',
      'style',
      'math',
    ])
      expect([tag, root.querySelector(tag)]).toEqual([tag, null]);
    const attrs = attributes(root);
    expect(attrs.filter((attr) => /\[on|\[style=|javascript:/i.test(attr))).toEqual([]);
    // What is left is the harmless text.
    expect(root.textContent).toContain('click');
    expect(root.textContent).toContain('cover');
  });

  it('tells Markdown from plain prose, so plain answers get no toggle', () => {
    expect(looksLikeMarkdown('Happy to. Do you prefer museums or beaches?')).toBe(false);
    expect(looksLikeMarkdown('Steps:\n- book the train\n- pack')).toBe(true);
    expect(looksLikeMarkdown('Use **Baixa** as the base')).toBe(true);
  });
});
