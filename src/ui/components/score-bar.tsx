/** A labelled bar for a value in [0, 1]. */
export function ScoreBar({ label, value }: { label: string; value: number }) {
  const clamped = Math.max(0, Math.min(1, value));
  return (
    <div class="score">
      <span class="score-label">{label}</span>
      <meter min={0} max={1} value={clamped} aria-label={label} title={value.toFixed(3)} />
      <span class="score-value">{value.toFixed(2)}</span>
    </div>
  );
}
