import { afterEach, describe, expect, it } from 'vitest';
import { stickyOverlapPx } from './sticky-overlap';

function bar(style: string, heightPx: number): HTMLElement {
  const element = document.createElement('div');
  element.setAttribute('style', style);
  element.getBoundingClientRect = () => ({ height: heightPx }) as DOMRect;
  document.body.append(element);
  return element;
}

afterEach(() => document.body.replaceChildren());

describe('stickyOverlapPx', () => {
  it('is the bottom of the lowest bar stuck at the top: the header, then the toolbar under it', () => {
    const header = bar('position: sticky; top: 0px', 56);
    const toolbar = bar('position: sticky; top: 64px', 40);
    expect(stickyOverlapPx([header, toolbar])).toBe(104);
  });

  it('ignores bars that scroll away with the page, and missing ones', () => {
    const header = bar('position: static', 56);
    const toolbar = bar('position: sticky; top: 64px', 40);
    expect(stickyOverlapPx([header, null, toolbar])).toBe(104);
    expect(stickyOverlapPx([header])).toBe(0);
  });
});
