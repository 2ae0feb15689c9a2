import Table from 'cli-table3';
import { ValidationError } from '../core/errors.js';
import type { TraceRecord } from '../engine/context/trace-log.js';
import type { SessionRef } from '../engine/sessions/session-ref.js';
import type { Engram } from '../engram.js';
import type { CliIo } from './cli-io.js';
import { type StoreFlags, withEngram } from './open-engram.js';

export interface InspectFlags extends StoreFlags {
  tenant: string;
  user?: string;
  namespace?: string;
  last: string;
  json?: boolean;
}

/** Most turns one `engram inspect` prints (the trace log keeps 50 per session by default). */
export const MAX_INSPECT_TURNS = 50;

const plain = {
  chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  style: { head: [], border: [] },
};

/** Excluded items of a section, counted per reason: `3 over_budget, 1 duplicate`. */
function excludedByReason(items: TraceRecord['trace']['sections'][number]['items']): string {
  const counts = new Map<string, number>();
  for (const item of items) if (!item.included) counts.set(item.reason, (counts.get(item.reason) ?? 0) + 1);
  return [...counts].map(([reason, count]) => `${count} ${reason}`).join(', ') || '-';
}

/** One turn: a heading line, the sections table (tokens, in, out and why) and the sources table. */
export function formatTurn(record: TraceRecord): string {
  const { trace } = record;
  const { budget, history } = trace;
  const heading =
    `turn ${record.id} at ${record.createdAt}  agent ${record.agentId}  model ${trace.model}\n` +
    `budget ${budget.used}/${budget.available} tokens used (max ${budget.maxWorkingMemoryTokens}, ` +
    `${budget.reservedOutputTokens} reserved for the answer)` +
    (trace.durationMs == null ? '' : `, assembled in ${trace.durationMs.toFixed(1)} ms`) +
    (trace.degraded ? '  DEGRADED (a source failed or timed out)' : '');
  const sections = new Table({ head: ['section', 'tokens', 'cap', 'in', 'out', 'excluded (why)'], ...plain });
  for (const section of trace.sections) {
    const included = section.items.filter((item) => item.included).length;
    sections.push([
      section.name,
      section.tokens,
      section.cap ?? '-',
      included,
      section.items.length - included,
      excludedByReason(section.items),
    ]);
  }
  const lines = [heading, sections.toString()];
  lines.push(
    `history: ${history.strategy}, ${history.kept} of ${history.candidates} read messages kept` +
      (history.olderNotRead > 0 ? `, ${history.olderNotRead} older not read (budget full)` : ''),
  );
  if (trace.sources.length > 0) {
    const sources = new Table({ head: ['source', 'section', 'status', 'ms', 'items'], ...plain });
    for (const source of trace.sources) {
      sources.push([
        source.name,
        source.section,
        source.status,
        source.durationMs.toFixed(1),
        source.itemCount,
      ]);
    }
    lines.push(sources.toString());
  }
  return `${lines.join('\n')}\n`;
}

/**
 * As in the API (AMS key fallback): the one live session with this id, narrowed by the user and
 * namespace given, so `engram inspect demo` finds the demo's session of user `demo-user`. Null when
 * there is none or more than one.
 */
async function uniqueSession(
  engram: Engram,
  sessionId: string,
  flags: InspectFlags,
): Promise<SessionRef | null> {
  const { sessions, total } = await engram.sessions.list({
    tenantId: flags.tenant,
    sessionId,
    limit: 2,
    ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    ...(flags.user === undefined ? {} : { userId: flags.user }),
  });
  const [only] = sessions;
  if (total > 1) {
    throw new ValidationError(
      `${total} sessions are named ${JSON.stringify(sessionId)} in tenant ${JSON.stringify(flags.tenant)}: pick one with --user and --namespace`,
    );
  }
  if (total !== 1 || !only) return null;
  return { tenantId: flags.tenant, sessionId, namespace: only.namespace, userId: only.userId };
}

/**
 * `engram inspect SESSION`: the session's last turns as the Context Inspector records them
 * (metadata only: sections, tokens, what was left out and why, sources), oldest first.
 */
export async function runInspect(sessionId: string, flags: InspectFlags, io: CliIo): Promise<number> {
  const last = Number(flags.last);
  if (!Number.isInteger(last) || last < 1 || last > MAX_INSPECT_TURNS) {
    throw new ValidationError(`--last must be a whole number from 1 to ${MAX_INSPECT_TURNS}`);
  }
  return withEngram(
    flags,
    io,
    async (engram) => {
      const session = (await uniqueSession(engram, sessionId, flags)) ?? {
        tenantId: flags.tenant,
        sessionId,
        userId: flags.user ?? null,
        namespace: flags.namespace ?? null,
      };
      const { traces, total } = await engram.traces.list(session, { limit: last });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ traces, total })}\n`);
        // The same exit status as the text output: no traces is a failure to find what was asked.
        return traces.length === 0 ? 1 : 0;
      }
      if (traces.length === 0) {
        io.stderr.write(
          `No traces for session ${JSON.stringify(sessionId)} in tenant ${JSON.stringify(flags.tenant)}` +
            `${flags.user ? ` (user ${flags.user})` : ''}: turns are traced when a context is assembled for it.\n`,
        );
        return 1;
      }
      io.stdout.write(
        `session ${sessionId}: last ${traces.length} of ${total} traced turns, oldest first\n\n`,
      );
      io.stdout.write([...traces].reverse().map(formatTurn).join('\n'));
      return 0;
    },
    { existing: true },
  );
}
