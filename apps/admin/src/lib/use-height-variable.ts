import { useCallback } from 'react';

/**
 * A callback ref that keeps the CSS custom property `name` on the document's root equal to the
 * element's rendered height in px, following it through wrapping, font loading and content
 * changes with a `ResizeObserver`; the property is removed when the element goes away. Sticky
 * offsets in `app.css` read it (`top: var(--app-header-height)`), so they follow what is on screen
 * instead of a guessed height.
 */
export function useHeightVariable(name: `--${string}`): (element: HTMLElement | null) => void {
  return useCallback(
    (element: HTMLElement | null) => {
      if (!element) return;
      const root = document.documentElement;
      const write = () => root.style.setProperty(name, `${element.offsetHeight}px`);
      write();
      const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(write) : null;
      observer?.observe(element);
      // React 19 calls this when the element leaves (or the ref changes).
      return () => {
        observer?.disconnect();
        root.style.removeProperty(name);
      };
    },
    [name],
  );
}
