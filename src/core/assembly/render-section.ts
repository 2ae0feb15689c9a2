import type { MemoryItem, RetrievalSection } from './memory-source.js';

/** Section headings. They tell the model what each block is and how to use it. */
export const SECTION_HEADINGS: Record<RetrievalSection | 'summary', string> = {
  procedure: 'Matched procedure (follow these steps when they apply to the request):',
  knowledge: 'Relevant knowledge (retrieved from memory; mention the source when you rely on it):',
  episodes: 'Relevant past conversations:',
  summary: 'Summary of the earlier conversation:',
};

/** One item as a line of its section. */
export function renderItem(section: RetrievalSection, item: MemoryItem): string {
  switch (section) {
    case 'procedure':
      return item.text;
    case 'knowledge':
      return item.source ? `- ${item.text} (Source: ${item.source})` : `- ${item.text}`;
    case 'episodes':
      return item.date ? `- [${item.date}] ${item.text}` : `- ${item.text}`;
  }
}

/** The whole section's text: heading, then one item per line, in rank order. */
export function renderSection(section: RetrievalSection, items: readonly MemoryItem[]): string {
  return [SECTION_HEADINGS[section], ...items.map((item) => renderItem(section, item))].join('\n');
}

/** The running summary as it is placed in front of the kept history. */
export function renderSummary(summary: string): string {
  return `${SECTION_HEADINGS.summary}\n${summary}`;
}
