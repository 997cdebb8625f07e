import { useId, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { checkToken } from '../api/check-token';

/**
 * The sign-in screen: paste the admin token (or open the URL the server prints). `notice` says
 * why it is shown again, for example after the server refused the token.
 */
export function SignIn({
  notice,
  onSignedIn,
}: {
  notice: string | null;
  onSignedIn: (token: string) => void;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <main className="sign-in">
      <form
        className="card sign-in-card"
        onSubmit={async (event) => {
          event.preventDefault();
          const value = token.trim();
          if (!value) return setError('Enter the admin token.');
          setBusy(true);
          setError(null);
          try {
            await checkToken(value);
            onSignedIn(value);
          } catch (failure) {
            setError(
              failure instanceof ApiError && failure.unauthorized
                ? 'The server refused this token. Check MEMORY_ADMIN_TOKEN, or use the URL the server printed at start-up.'
                : failure instanceof Error
                  ? failure.message
                  : String(failure),
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 className="brand">agent-memory</h1>
        <p className="muted">
          Sign in with the admin token. Opening the URL the server prints at start-up signs you in
          for this tab.
        </p>
        {notice && (
          <div className="notice notice-error" role="alert">
            {notice}
          </div>
        )}
        <label htmlFor={id}>Admin token</label>
        <input
          id={id}
          className="input"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        {error && (
          <div className="field-error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
