/**
 * How far down from the window's top the given bars cover the page while they are stuck there
 * (`position: sticky` or `fixed` with a `top`), in px: where a row scrolled "to the top" must
 * land to be seen. Bars that scroll away with the page (a phone's static header) count for nothing.
 */
export function stickyOverlapPx(bars: readonly (Element | null | undefined)[]): number {
  let bottom = 0;
  for (const bar of bars) {
    if (!bar) continue;
    const style = window.getComputedStyle(bar);
    if (style.position !== 'sticky' && style.position !== 'fixed') continue;
    const top = Number.parseFloat(style.top);
    if (!Number.isFinite(top)) continue;
    bottom = Math.max(bottom, top + bar.getBoundingClientRect().height);
  }
  return bottom;
}
