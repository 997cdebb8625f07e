import { useId, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { getSession } from '../api/get-session';

/** "Go to id": opens a session by its exact id, or says that it does not exist. */
export function JumpToSession({ onOpen }: { onOpen: (id: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  return (
    <form
      className="jump"
      onSubmit={async (event) => {
        event.preventDefault();
        const wanted = value.trim();
        if (!wanted) return;
        setError(null);
        try {
          await getSession(wanted);
          onOpen(wanted);
        } catch (failure) {
          setError(
            failure instanceof ApiError && (failure.status === 404 || failure.status === 400)
              ? `No session "${wanted}"`
              : failure instanceof Error
                ? failure.message
                : String(failure),
          );
        }
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Session id
      </label>
      <input
        id={id}
        className="input input-mono"
        placeholder="Jump to session id"
        value={value}
        spellCheck={false}
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit" className="button">
        Open
      </button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
