import { memo } from 'react';
import { MessageCard } from '../../../components/message-card';
import type { Message, TranscriptEntry } from '../../../lib/api-types';

function sameRow(before: RowProps, after: RowProps): boolean {
  return (
    before.entry === after.entry &&
    before.pinned === after.pinned &&
    before.toolResults.length === after.toolResults.length &&
    before.toolResults.every((result, index) => result === after.toolResults[index])
  );
}

interface RowProps {
  entry: TranscriptEntry;
  pinned: boolean;
  toolResults: Message[];
}

/**
 * One message of the log. Memoised on its entry, so appending a page renders only the new rows
 * (a long session would otherwise redraw every loaded message on each page).
 */
export const TranscriptRow = memo(function TranscriptRow({ entry, pinned, toolResults }: RowProps) {
  const results = new Map(toolResults.map((result) => [result.toolCallId!, result] as const));
  return (
    <MessageCard
      message={entry.message}
      cursor={entry.cursor}
      tokens={entry.tokens}
      results={results}
      dimmed={entry.covered}
      badges={
        <>
          {entry.covered && (
            <span className="badge badge-muted" title="summarised by the snapshot">
              covered
            </span>
          )}
          {pinned && <span className="badge badge-pinned">pinned</span>}
        </>
      }
    />
  );
}, sameRow);
