/** Component names as shown: `decayed_salience` → `decayed salience`. */
const label = (name: string) => name.replaceAll('_', ' ');

/**
 * The parts of one candidate's score, as recorded in the trace: parts in [0, 1] as bars, others
 * (a BM25 text score, a boost) as numbers. Weights come last, after what they weigh.
 */
export function ScoreComponents({ id, components }: { id: string; components?: Record<string, number> }) {
  const entries = Object.entries(components ?? {}).sort(
    ([a], [b]) => Number(a.startsWith('weight_')) - Number(b.startsWith('weight_')),
  );
  if (entries.length === 0) return null;
  return (
    <dl class="components" aria-label={`Score components of ${id}`}>
      {entries.map(([name, value]) => (
        <div key={name} class="component">
          <dt>{label(name)}</dt>
          <dd>
            {value >= 0 && value <= 1 ? (
              <meter min={0} max={1} value={value} aria-label={label(name)} title={String(value)} />
            ) : null}
            <span class="score-value">{value.toFixed(3)}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}
