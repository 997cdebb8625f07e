import { useEffect, useState, type ReactNode } from 'react';
import { useNarrowScreen } from '../lib/use-narrow-screen';

/**
 * One panel of the session page's side column. On a wide screen it is the panel as is; on a phone,
 * where the column comes before the log, it folds into one line (`title` and its key numbers in
 * `summary`) so the log's tabs stay near the top, and opens on a tap.
 */
export function SideFold({
  title,
  summary,
  children,
}: {
  title: string;
  summary?: ReactNode;
  children: ReactNode;
}) {
  const narrow = useNarrowScreen();
  const [open, setOpen] = useState(!narrow);
  // Rotating to a wide screen shows every panel; narrowing folds them again.
  useEffect(() => setOpen(!narrow), [narrow]);
  return (
    <details
      className="side-fold"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary className="side-fold-summary">
        <span className="side-fold-title">{title}</span>
        {summary !== undefined && <span className="side-fold-numbers">{summary}</span>}
      </summary>
      {children}
    </details>
  );
}
