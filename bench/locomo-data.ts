import { readFileSync } from 'node:fs';

/** One dialogue turn of a LoCoMo conversation. */
export interface LocomoTurn {
  id: string;
  session: number;
  speaker: string;
  text: string;
  /** ISO date-time of the session the turn belongs to. */
  date: string;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Normalized evidence turn ids that exist in the conversation. */
  evidence: string[];
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Parses LoCoMo session stamps like "1:56 pm on 8 May, 2023" (UTC, since no zone is given). */
export function parseSessionDate(text: string): string {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(text);
  if (!match) throw new Error(`Unrecognized session date "${text}"`);
  const [, hour, minute, meridiem, day, month, year] = match;
  const monthIndex = MONTHS.indexOf((month ?? '').toLowerCase());
  let hours = Number(hour) % 12;
  if ((meridiem ?? '').toLowerCase() === 'pm') hours += 12;
  return new Date(Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute))).toISOString();
}

/** Normalizes evidence ids: "D8:6; D9:17" → two ids, "D:11:26" → "D11:26", "D30:05" → "D30:5". */
export function normalizeEvidence(evidence: readonly string[], known: ReadonlySet<string>): string[] {
  const ids = evidence
    .flatMap((entry) => entry.split(/[;,\s]+/))
    .map((entry) => entry.trim().replace(/^D:?(\d+):0*(\d+)$/, 'D$1:$2'))
    .filter((entry) => known.has(entry));
  return [...new Set(ids)];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** Loads LoCoMo's `locomo10.json` format. */
export function loadLocomo(path: string): LocomoConversation[] {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as {
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: { question: string; category: number; evidence?: string[] }[];
  }[];
  return raw.map((sample) => {
    const turns: LocomoTurn[] = [];
    for (const [key, value] of Object.entries(sample.conversation)) {
      const session = /^session_(\d+)$/.exec(key)?.[1];
      if (!session || !Array.isArray(value)) continue;
      const date = parseSessionDate(String(sample.conversation[`session_${session}_date_time`]));
      for (const turn of value as RawTurn[]) {
        const caption = turn.blip_caption ? ` [shared a photo: ${turn.blip_caption}]` : '';
        turns.push({
          id: turn.dia_id,
          session: Number(session),
          speaker: turn.speaker,
          text: turn.text + caption,
          date,
        });
      }
    }
    const known = new Set(turns.map((turn) => turn.id));
    const questions = sample.qa.map((qa) => ({
      question: qa.question,
      category: qa.category,
      evidence: normalizeEvidence(qa.evidence ?? [], known),
    }));
    return { id: sample.sample_id, turns, questions };
  });
}
