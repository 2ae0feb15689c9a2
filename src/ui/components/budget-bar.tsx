import type { Trace } from '../api-types.js';
import { budgetParts } from '../trace-math.js';

/** The window as one bar: tokens per section, the reserved output and what stayed unused. */
export function BudgetBar({ trace }: { trace: Trace }) {
  const parts = budgetParts(trace);
  const label = parts.map((part) => `${part.name} ${part.tokens}`).join(', ');
  return (
    <figure class="budget">
      <div
        class="budget-bar"
        role="img"
        aria-label={`Budget of ${trace.budget.max_working_memory_tokens} tokens: ${label}`}
      >
        {parts
          .filter((part) => part.tokens > 0)
          .map((part) => (
            <span
              key={part.name}
              class={`part part-${part.name}`}
              style={{ width: `${(part.share * 100).toFixed(2)}%` }}
              title={`${part.name}: ${part.tokens} tokens`}
            />
          ))}
      </div>
      <figcaption class="legend">
        {parts.map((part) => (
          <span key={part.name} class="legend-entry">
            <span class={`swatch part-${part.name}`} aria-hidden="true" /> {part.name} {part.tokens}
          </span>
        ))}
        <span class="legend-entry">
          used {trace.budget.used} / available {trace.budget.available} ({trace.model})
        </span>
      </figcaption>
    </figure>
  );
}
