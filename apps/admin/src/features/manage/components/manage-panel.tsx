import { useEffect, useId, useState } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import { TypedConfirm } from '../../../components/typed-confirm';
import type { AdminRole, SessionInfo } from '../../../lib/api-types';
import { mayCall, useRoleTable } from '../../../lib/roles';
import { CLEAR_SESSION_ROUTE, useClearSession } from '../api/clear-session';
import { DELETE_SESSION_ROUTE, useDeleteSession } from '../api/delete-session';
import { exportSession, type ExportFormat } from '../api/export-session';
import { UPDATE_META_ROUTE, useUpdateMeta } from '../api/update-meta';
import { metaPatch, parseMetaJson } from '../meta-patch';

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Managing one session: its title and metadata (JSON, validated), export as JSON or Markdown,
 * and clear or delete behind a typed confirmation. Only what `role` may do is offered, as the
 * server's role table (`GET /api/roles`) says; nothing but export until it has loaded.
 */
export function ManagePanel({
  session,
  role = 'admin',
  onChanged,
  onDeleted,
}: {
  session: SessionInfo;
  /** The signed-in token's role. Default admin. */
  role?: AdminRole;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const roles = useRoleTable();
  const mayEdit = mayCall(roles.data, role, UPDATE_META_ROUTE);
  const mayClear = mayCall(roles.data, role, CLEAR_SESSION_ROUTE);
  const mayDelete = mayCall(roles.data, role, DELETE_SESSION_ROUTE);
  const ids = { title: useId(), meta: useId() };
  const [title, setTitle] = useState(session.meta.title ?? '');
  const [metaText, setMetaText] = useState(() => JSON.stringify(session.meta, null, 2));
  const [danger, setDanger] = useState<'clear' | 'delete' | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const update = useUpdateMeta(session.id);
  const clear = useClearSession(session.id);
  const remove = useDeleteSession(session.id);
  const metaKey = JSON.stringify(session.meta);
  useEffect(() => {
    const meta = JSON.parse(metaKey) as Record<string, string>;
    setTitle(meta.title ?? '');
    setMetaText(JSON.stringify(meta, null, 2));
  }, [metaKey]);
  const parsed = parseMetaJson(metaText);

  return (
    <section className="card panel" aria-labelledby="manage-heading">
      <h2 id="manage-heading">Manage</h2>
      {mayEdit && (
        <>
          <form
            className="stack"
            onSubmit={(event) => {
              event.preventDefault();
              update.mutate({ title: title.trim() }, { onSuccess: onChanged });
            }}
          >
            <label htmlFor={ids.title}>Title</label>
            <div className="row">
              <input
                id={ids.title}
                className="input"
                value={title}
                maxLength={4096}
                placeholder="No title (the id is shown)"
                onChange={(event) => setTitle(event.target.value)}
              />
              <button type="submit" className="button" disabled={update.isPending}>
                Save
              </button>
            </div>
          </form>
          <form
            className="stack"
            onSubmit={(event) => {
              event.preventDefault();
              if (!parsed.ok) return;
              const patch = metaPatch(session.meta, parsed.meta);
              if (Object.keys(patch).length > 0) update.mutate(patch, { onSuccess: onChanged });
            }}
          >
            <label htmlFor={ids.meta}>Metadata (JSON object of strings)</label>
            <textarea
              id={ids.meta}
              className="input textarea mono"
              rows={Math.min(10, Math.max(3, metaText.split('\n').length))}
              spellCheck={false}
              value={metaText}
              aria-invalid={!parsed.ok}
              onChange={(event) => setMetaText(event.target.value)}
            />
            {!parsed.ok && (
              <div className="field-error" role="alert">
                {parsed.error}
              </div>
            )}
            <div className="row">
              <button type="submit" className="button" disabled={!parsed.ok || update.isPending}>
                Save metadata
              </button>
            </div>
          </form>
          {update.isError && <ErrorNotice error={update.error} what="save the metadata" />}
        </>
      )}

      <div className="stack">
        <span className="label">Export</span>
        <div className="row">
          {(['json', 'md'] as ExportFormat[]).map((format) => (
            <button
              key={format}
              type="button"
              className="button"
              onClick={async () => {
                setExportError(null);
                try {
                  download(await exportSession(session.id, format), `${session.id}.${format}`);
                } catch (error) {
                  setExportError(error);
                }
              }}
            >
              {format === 'json' ? 'Export JSON' : 'Export Markdown'}
            </button>
          ))}
        </div>
        {exportError !== null && <ErrorNotice error={exportError} what="export the session" />}
      </div>

      {(mayClear || mayDelete) && (
        <div className="stack danger-zone">
          <span className="label">Danger zone</span>
          <div className="row">
            {mayClear && (
              <button
                type="button"
                className="button button-danger-outline"
                aria-expanded={danger === 'clear'}
                onClick={() => setDanger(danger === 'clear' ? null : 'clear')}
              >
                Clear…
              </button>
            )}
            {mayDelete && (
              <button
                type="button"
                className="button button-danger-outline"
                aria-expanded={danger === 'delete'}
                onClick={() => setDanger(danger === 'delete' ? null : 'delete')}
              >
                Delete…
              </button>
            )}
          </div>
          {danger === 'clear' && (
            <TypedConfirm
              expected={session.id}
              action="Clear session"
              busy={clear.isPending}
              description="Removes every message, the snapshot and the metadata. The id stays; its counts restart at 0."
              onConfirm={() =>
                clear.mutate(undefined, {
                  onSuccess: () => {
                    setDanger(null);
                    onChanged();
                  },
                })
              }
            />
          )}
          {danger === 'delete' && (
            <TypedConfirm
              expected={session.id}
              action="Delete session"
              busy={remove.isPending}
              description="Deletes the session and everything in it. This cannot be undone."
              onConfirm={() => remove.mutate(undefined, { onSuccess: onDeleted })}
            />
          )}
          {clear.isError && <ErrorNotice error={clear.error} what="clear the session" />}
          {remove.isError && <ErrorNotice error={remove.error} what="delete the session" />}
        </div>
      )}
    </section>
  );
}
