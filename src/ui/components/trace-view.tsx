import { useState } from 'preact/hooks';
import type { TraceItem, TraceRecord } from '../api-types.js';
import { BudgetBar } from './budget-bar.js';
import { ErrorNotice } from './error-notice.js';
import { resolveContent } from './resolve-content.js';
import { ScoreComponents } from './score-components.js';

function Candidate({ item, section, record }: { item: TraceItem; section: string; record: TraceRecord }) {
  const [content, setContent] = useState<{ text?: string; error?: unknown } | null>(null);
  return (
    <tr class={item.included ? 'included' : 'excluded'}>
      <td>
        <code>{item.id}</code>
        {item.source ? <div class="muted">{item.source}</div> : null}
        <ScoreComponents id={item.id} components={item.components} />
        {content?.text !== undefined ? <pre class="content">{content.text}</pre> : null}
        {content?.error ? <ErrorNotice error={content.error} /> : null}
      </td>
      <td>{item.kind}</td>
      <td>{item.included ? 'included' : 'excluded'}</td>
      <td>
        <span class={`reason reason-${item.reason}`}>{item.reason}</span>
      </td>
      <td class="number">{item.tokens}</td>
      <td class="number">{item.score === undefined ? '' : item.score.toFixed(3)}</td>
      <td>
        <button
          type="button"
          class="small"
          aria-label={`Show the content of ${item.id}`}
          onClick={() =>
            resolveContent(item, section, record).then(
              (text) => setContent({ text }),
              (error: unknown) => setContent({ error }),
            )
          }
        >
          Show
        </button>
      </td>
    </tr>
  );
}

/** One turn: the budget bar, every section's candidates with their reasons, and the sources. */
export function TraceView({ record }: { record: TraceRecord }) {
  const { trace } = record;
  return (
    <section class="trace" aria-label="Turn details">
      <BudgetBar trace={trace} />
      <p class="muted">
        Turn {record.id} · agent {record.agent_id} · {new Date(record.created_at).toLocaleString()} ·{' '}
        {trace.duration_ms === null ? '' : `${trace.duration_ms.toFixed(1)} ms`} · history{' '}
        {trace.history.kept} of {trace.history.candidates} kept, {trace.history.older_not_read} older not read
        {trace.degraded ? <strong class="degraded"> · degraded</strong> : null}
      </p>
      <h3>Sources</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>source</th>
              <th>section</th>
              <th>status</th>
              <th class="number">ms</th>
              <th class="number">items</th>
            </tr>
          </thead>
          <tbody>
            {trace.sources.map((source) => (
              <tr key={source.name} class={source.status === 'ok' ? '' : 'degraded'}>
                <td>{source.name}</td>
                <td>{source.section}</td>
                <td>
                  {source.status}
                  {source.error ? `: ${source.error}` : ''}
                </td>
                <td class="number">{source.duration_ms.toFixed(1)}</td>
                <td class="number">{source.item_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {trace.sections.map((section) => (
        <details key={section.name} open={section.items.some((item) => item.kind === 'memory')}>
          <summary>
            {section.name}: {section.tokens} tokens{section.cap === null ? '' : ` (cap ${section.cap})`},{' '}
            {section.items.filter((item) => item.included).length} of {section.items.length} candidates
            included
          </summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>id and score components</th>
                  <th>kind</th>
                  <th>state</th>
                  <th>reason</th>
                  <th class="number">tokens</th>
                  <th class="number">score</th>
                  <th>content</th>
                </tr>
              </thead>
              <tbody>
                {section.items.map((item) => (
                  <Candidate
                    key={`${item.kind}:${item.id}`}
                    item={item}
                    section={section.name}
                    record={record}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ))}
    </section>
  );
}
