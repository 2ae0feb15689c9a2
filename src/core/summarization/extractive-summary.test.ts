import { describe, expect, it } from 'vitest';
import { extractiveSummary } from './extractive-summary.js';

describe('extractiveSummary', () => {
  const messages = [
    { role: 'user', content: 'Hi there! My flight to Lisbon leaves on March 3rd. Thanks.' },
    { role: 'assistant', content: 'Great. I booked a window seat on TAP flight 204 for you.' },
    { role: 'tool', content: 'internal tool output that is never summarized' },
    { role: 'user', content: 'Ok. Also my daughter Ana is allergic to peanuts.' },
  ];

  it('keeps specific sentences in order, with their roles, and leaves out tool output', () => {
    const summary = extractiveSummary(null, messages);
    const lines = summary.split('\n');
    expect(lines).toContain('- user: My flight to Lisbon leaves on March 3rd.');
    expect(lines).toContain('- user: Also my daughter Ana is allergic to peanuts.');
    expect(lines.indexOf('- user: My flight to Lisbon leaves on March 3rd.')).toBeLessThan(
      lines.indexOf('- user: Also my daughter Ana is allergic to peanuts.'),
    );
    expect(summary).not.toContain('tool output');
  });

  it('prefers specific sentences over small talk when space is short', () => {
    const summary = extractiveSummary(null, messages, 120);
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary).not.toContain('Thanks');
    expect(summary).toMatch(/Lisbon|peanuts|TAP/);
  });

  it('merges with the previous summary and never returns less than it had when nothing new is informative', () => {
    const previous = '- user: Lives in Oslo.';
    expect(extractiveSummary(previous, [{ role: 'user', content: 'Oh yes.' }])).toBe(previous);
    const merged = extractiveSummary(previous, messages);
    expect(merged.startsWith(previous)).toBe(true);
    expect(merged).toContain('Lisbon');
  });

  it('stays within maxChars by dropping the oldest previous lines first', () => {
    const previous = Array.from({ length: 50 }, (_, index) => `- user: old fact number ${index}`).join('\n');
    const merged = extractiveSummary(previous, messages, 400);
    expect(merged.length).toBeLessThanOrEqual(400);
    expect(merged).toContain('old fact number 49');
    expect(merged).not.toContain('old fact number 0\n');
    expect(merged).toContain('Lisbon');
  });
});
