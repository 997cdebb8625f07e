import { ApiError } from '../lib/api-client';

/** An error box naming what failed, with the server's code, and an optional retry. */
export function ErrorNotice({
  error,
  what,
  onRetry,
}: {
  error: unknown;
  what: string;
  onRetry?: () => void;
}) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? error.code : null;
  return (
    <div className="notice notice-error" role="alert">
      <strong>Could not {what}.</strong> <span>{message}</span>
      {code && <code className="code-tag">{code}</code>}
      {onRetry && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
