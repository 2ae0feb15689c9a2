import type { TraceRecord } from '../api-types.js';
import { sectionNames } from '../trace-math.js';

/** Context tokens per section across turns (oldest left), as stacked columns in SVG. */
export function TokensChart({ records }: { records: TraceRecord[] }) {
  const turns = [...records].reverse();
  if (turns.length === 0) return null;
  const totals = turns.map((record) =>
    record.trace.sections.reduce((sum, section) => sum + section.tokens, 0),
  );
  // Scaled to the largest turn, not the window: the sections of small contexts stay readable.
  const top = Math.max(1, ...totals);
  const column = 24;
  const width = Math.max(20, turns.length) * column;
  const height = 140;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Context tokens per section across ${turns.length} turns, highest ${Math.max(...totals)}`}
        preserveAspectRatio="xMinYMax meet"
      >
        {turns.map((record, index) => {
          let y = height;
          return sectionNames.map((name) => {
            const tokens = record.trace.sections.find((section) => section.name === name)?.tokens ?? 0;
            const barHeight = (tokens / top) * height;
            y -= barHeight;
            return barHeight > 0 ? (
              <rect
                key={`${record.id}-${name}`}
                class={`part-${name}`}
                x={index * column + 3}
                y={y}
                width={column - 6}
                height={barHeight}
              >
                <title>{`${new Date(record.created_at).toLocaleTimeString()} ${name}: ${tokens}`}</title>
              </rect>
            ) : null;
          });
        })}
      </svg>
      <figcaption class="muted">
        Tokens per section, one column per turn (oldest left); highest {top} tokens; budget bar below.
      </figcaption>
    </figure>
  );
}
