/**
 * Previous/next with "21–40 of 57". `label` names what is paged ("Pages of sessions"): each
 * navigation landmark needs a name of its own, apart from the main one.
 */
export function Pager({
  label,
  offset,
  limit,
  total,
  onChange,
}: {
  label: string;
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
}) {
  const last = Math.min(total, offset + limit);
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span aria-live="polite">{total === 0 ? 'none' : `${offset + 1}–${last} of ${total}`}</span>
      <button type="button" disabled={last >= total} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
