import { useId, useState, type ReactNode } from 'react';

/**
 * A destructive action that only runs once the user types `expected` (the session id), so a
 * stray click or Enter cannot trigger it.
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
  return (
    <form
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
