import { useState } from 'react';

/** A small button that copies `value` to the clipboard and says so for a moment. */
export function CopyButton({ value, label = 'Copy id' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={`${label}: ${value}`}
      title={label}
      onClick={(event) => {
        event.stopPropagation();
        void navigator.clipboard?.writeText(value).then(
          () => {
            setCopied(true);
            window.setTimeout(() => setCopied(false), 1500);
          },
          () => undefined,
        );
      }}
    >
      {copied ? '✓' : '⧉'}
    </button>
  );
}
