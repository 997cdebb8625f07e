import { useEffect, useId, useState } from 'react';

/** How long typing must pause before the search runs. */
export const SEARCH_DEBOUNCE_MS = 250;

/**
 * The list's search over id and title (or, with its own `label` and `placeholder`, another
 * filter of the list); reports the value once typing pauses.
 */
export function SearchBox({
  value,
  onSearch,
  label = 'Search sessions by id or title',
  placeholder = 'Search by id or title',
}: {
  value: string;
  onSearch: (q: string) => void;
  label?: string;
  placeholder?: string;
}) {
  const [text, setText] = useState(value);
  const id = useId();
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = window.setTimeout(() => onSearch(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, value, onSearch]);
  return (
    <div className="search">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        className="input"
        placeholder={placeholder}
        value={text}
        spellCheck={false}
        onChange={(event) => setText(event.target.value)}
      />
    </div>
  );
}
