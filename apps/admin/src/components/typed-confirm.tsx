import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A destructive action that only runs once the user types `expected` (the session id), so a
 * stray click or Enter cannot trigger it. When it opens it scrolls itself into view (also inside a
 * scrolling side column) and takes the focus.
 */
export function TypedConfirm({
  expected,
  action,
  description,
  busy,
  onConfirm,
}: {
  expected: string;
  action: string;
  description: ReactNode;
  busy: boolean;
  onConfirm: () => void;
}) {
  const [typed, setTyped] = useState('');
  const id = useId();
  const matches = typed === expected;
  const form = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // Every scrolling ancestor moves, so the whole form (its button too) is on screen.
    form.current?.scrollIntoView?.({ block: 'nearest' });
    input.current?.focus({ preventScroll: true });
  }, []);
  return (
    <form
      ref={form}
      className="typed-confirm"
      onSubmit={(event) => {
        event.preventDefault();
        if (matches && !busy) onConfirm();
      }}
    >
      <p>{description}</p>
      <label htmlFor={id}>
        Type <code>{expected}</code> to confirm
      </label>
      <div className="row">
        <input
          ref={input}
          id={id}
          className="input"
          value={typed}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => setTyped(event.target.value)}
        />
        <button type="submit" className="button button-danger" disabled={!matches || busy}>
          {busy ? 'Working…' : action}
        </button>
      </div>
    </form>
  );
}
