import { createInterface } from 'node:readline';
import type { ContextMessage } from '../core/assembly/context-message.js';
import type { ContextTrace } from '../core/assembly/context-trace.js';
import { EngramError, parseWith } from '../core/errors.js';
import { type AgentInput, pruningStrategySchema } from '../core/schemas/agent.js';
import { createEngram } from '../engram.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import { DEMO_AGENT_ID, DEMO_SUGGESTION, DEMO_USER_ID, seedDemoExample } from './demo-example.js';

const PROMPT = 'you> ';

export interface DemoOptions {
  databasePath: string;
  sessionId: string;
  budget: number;
  strategy: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Formats a trace as a short table: one line per section, then source timings. */
export function formatTrace(trace: ContextTrace): string {
  const lines = [`budget ${trace.budget.used}/${trace.budget.available} tokens (${trace.model})`];
  for (const section of trace.sections) {
    const included = section.items.filter((item) => item.included).length;
    const excluded = section.items.length - included;
    const reasons = [...new Set(section.items.filter((item) => !item.included).map((item) => item.reason))];
    lines.push(
      `  ${section.name.padEnd(9)} ${String(section.tokens).padStart(6)} tokens  ${included} in` +
        (excluded > 0 ? `, ${excluded} out (${reasons.join(', ')})` : ''),
    );
  }
  if (trace.history.olderNotRead > 0) lines.push(`  (${trace.history.olderNotRead} older messages not read)`);
  return lines.join('\n');
}

function formatContext(messages: readonly ContextMessage[]): string {
  return messages.map((message) => `[${message.section}/${message.role}] ${message.content}`).join('\n');
}

/**
 * A small interactive loop: each line is the user's message; the context engram would send to a
 * model is assembled and explained, then the turn is stored (the "assistant" only echoes, since
 * the demo needs no LLM or API key).
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  const print = (text: string) => options.output.write(`${text}\n`);
  const strategy = parseWith(pruningStrategySchema, options.strategy, '--strategy');
  const engram = await createEngram({ store: await createSqliteStore({ path: options.databasePath }) });
  const agent: AgentInput = {
    id: DEMO_AGENT_ID,
    systemPrompt: 'You are a helpful assistant with a long memory.',
    memory: {
      maxWorkingMemoryTokens: options.budget,
      reservedOutputTokens: Math.floor(options.budget / 5),
      pruningStrategy: strategy,
    },
  };
  // A user, so that facts and episodes about them can be recalled.
  const session = { sessionId: options.sessionId, userId: DEMO_USER_ID };
  print(`engram demo — session "${options.sessionId}" in ${options.databasePath}`);
  if (await seedDemoExample(engram, session)) {
    print(
      'Seeded an example: an approved procedure ("Damaged order"), a knowledge document ("Returns policy.md"),\n' +
        'an episode of a past session, a fact about the user and an earlier exchange. Try:',
    );
    print(`  ${DEMO_SUGGESTION}`);
  }
  const existing = await engram.sessions.get(session, { recentMessagesLimit: 1 });
  print(`${existing?.messageCount ?? 0} stored messages. Type a message, /context, or /quit.`);

  let lastContext: ContextMessage[] = [];
  const lines = createInterface({ input: options.input, terminal: false });
  const prompt = () => options.output.write(PROMPT);
  prompt();
  for await (const line of lines) {
    const text = line.trim();
    if (text === '/quit') break;
    if (text === '') {
      prompt();
      continue;
    }
    if (text === '/context') {
      print(formatContext(lastContext));
      prompt();
      continue;
    }
    try {
      const result = await engram.assemble({ agent, session, message: text });
      lastContext = result.context;
      print(formatTrace(result.trace));
      await engram.sessions.append(session, [
        { role: 'user', content: text },
        { role: 'assistant', content: `(demo, no model) I will remember: ${text}` },
      ]);
    } catch (error) {
      if (!(error instanceof EngramError)) throw error;
      print(`error ${error.code}: ${error.message}`);
    }
    prompt();
  }
  // Stop reading: an open stdin would keep the process alive after /quit.
  lines.close();
  (options.input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  print('');
  await engram.close();
}
