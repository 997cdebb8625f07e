import { useState } from 'react';
import { ErrorNotice } from '../../../components/error-notice';
import { TypedConfirm } from '../../../components/typed-confirm';
import { formatCount } from '../../../lib/number-format';
import type { EraseReceipt } from '../../../lib/api-types';
import { useEraseResource } from '../api/erase-resource';

const plural = (count: number, one: string, many: string) =>
  `${formatCount(count)} ${count === 1 ? one : many}`;

/** What an erase removed, to keep with the request that asked for it. */
function Receipt({ receipt }: { receipt: EraseReceipt }) {
  return (
    <div className="card erase-receipt" role="status">
      <p>
        Erased <code>{receipt.resource}</code>: {plural(receipt.sessions, 'session', 'sessions')},{' '}
        {plural(receipt.messages, 'message', 'messages')},{' '}
        {plural(receipt.vectors, 'recall vector', 'recall vectors')}.
      </p>
      <p className="muted">
        Erased at <time dateTime={receipt.erasedAt}>{receipt.erasedAt}</time>. Keep this receipt
        with the request; erasing again is safe and finds nothing.
      </p>
    </div>
  );
}

/**
 * "Erase resource": every session whose `resource` meta is `resource`, with its compaction jobs
 * and recall vectors, once the user types the resource name; then the receipt.
 */
export function EraseResource({ resource }: { resource: string }) {
  const [open, setOpen] = useState(false);
  const erase = useEraseResource();
  const receipt = erase.data?.resource === resource ? erase.data : null;
  return (
    <div className="erase-resource">
      {receipt ? (
        <Receipt receipt={receipt} />
      ) : open ? (
        <TypedConfirm
          key={resource}
          expected={resource}
          action="Erase resource"
          busy={erase.isPending}
          description={
            <>
              Erases every session of <code>{resource}</code>: messages, summaries, metadata,
              compaction jobs and recall vectors. This cannot be undone.
            </>
          }
          onConfirm={() => erase.mutate(resource)}
        />
      ) : (
        <button
          type="button"
          className="button button-danger-outline"
          onClick={() => setOpen(true)}
        >
          Erase resource…
        </button>
      )}
      {erase.isError && <ErrorNotice error={erase.error} what={`erase ${resource}`} />}
    </div>
  );
}
