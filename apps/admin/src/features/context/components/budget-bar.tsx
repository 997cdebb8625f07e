import { formatCount } from '../../../lib/number-format';

/**
 * The context's tokens against the compaction threshold: summary, pinned, tail and reply priming
 * segments, whose legend adds up to the total, and a marker where compaction starts. Past the
 * threshold the scale grows so the marker stays visible.
 */
export function BudgetBar({
  summary,
  pinned,
  tail,
  priming,
  total,
  thresholdTokens,
}: {
  summary: number;
  pinned: number;
  tail: number;
  /** Tokens the request adds once to prime the reply; each message's overhead is in its part. */
  priming: number;
  total: number;
  thresholdTokens: number;
}) {
  const scale = Math.max(thresholdTokens, total, 1);
  const pct = (value: number) => `${((value / scale) * 100).toFixed(2)}%`;
  const used = thresholdTokens > 0 ? Math.round((total / thresholdTokens) * 100) : 0;
  const over = total >= thresholdTokens;
  const segments = [
    { key: 'summary', label: 'Summary', value: summary },
    { key: 'pinned', label: 'Pinned', value: pinned },
    { key: 'tail', label: 'Recent messages', value: tail },
    { key: 'priming', label: 'Reply priming', value: priming },
  ];
  return (
    <figure className="budget" aria-label="Token budget">
      <figcaption className="budget-head">
        <span>
          <strong>{formatCount(total)}</strong> of {formatCount(thresholdTokens)} tokens
        </span>
        <span className={over ? 'budget-over' : 'muted'}>
          {over ? `over the threshold (${used}%): compaction is due` : `${used}% of the threshold`}
        </span>
      </figcaption>
      <div
        className="budget-track"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={thresholdTokens}
        aria-valuenow={total}
        aria-label="Context tokens against the compaction threshold"
      >
        {segments.map((segment) =>
          segment.value > 0 ? (
            <div
              key={segment.key}
              className={`budget-seg budget-${segment.key}`}
              style={{ width: pct(segment.value) }}
              title={`${segment.label}: ${formatCount(segment.value)} tokens`}
            />
          ) : null,
        )}
        <div
          className="budget-threshold"
          style={{ left: pct(thresholdTokens) }}
          title={`compaction threshold: ${formatCount(thresholdTokens)} tokens`}
        />
      </div>
      <ul className="budget-legend">
        {segments.map((segment) => (
          <li key={segment.key}>
            <span className={`swatch budget-${segment.key}`} aria-hidden="true" />
            {segment.label} <span className="mono">{formatCount(segment.value)}</span>
          </li>
        ))}
        <li className="budget-sum">
          = <span className="mono">{formatCount(total)}</span> tokens the model is sent (each
          message counts its role and separators)
        </li>
      </ul>
    </figure>
  );
}
