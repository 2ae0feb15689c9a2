import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentSteps } from './chunk-document.js';

const count = (text: string) => text.split(/\s+/).filter(Boolean).length; // one token per word, for clarity

describe('chunkDocument', () => {
  const markdown = [
    '# HR Policy 2025',
    'Intro paragraph about the policy.',
    '## Vacation',
    'Employees get 25 days of paid vacation per year.',
    '',
    'Unused days carry over until March.',
    '## Sick leave',
    '```',
    'code block stays whole',
    '',
    'even with blank lines',
    '```',
    'Report sick days before 10am.',
  ].join('\n');

  it('keeps sections apart and prefixes each chunk with its heading path', () => {
    const chunks = chunkDocument(markdown, {
      format: 'markdown',
      targetTokens: 100,
      overlapTokens: 0,
      count,
    });
    expect(chunks.map((chunk) => chunk.headings)).toEqual([
      ['HR Policy 2025'],
      ['HR Policy 2025', 'Vacation'],
      ['HR Policy 2025', 'Sick leave'],
    ]);
    expect(chunks[1]?.text).toBe(
      'HR Policy 2025 > Vacation\nEmployees get 25 days of paid vacation per year.\n\nUnused days carry over until March.',
    );
    expect(chunks[2]?.text).toContain('```\ncode block stays whole\n\neven with blank lines\n```');
  });

  it('splits long sections to the target size with overlap, losing no words', () => {
    const sentences = Array.from(
      { length: 30 },
      (_, index) => `Sentence number ${index} has exactly seven words.`,
    );
    const chunks = chunkDocument(sentences.join(' '), {
      format: 'text',
      targetTokens: 20,
      overlapTokens: 5,
      count,
    });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.tokens).toBeLessThanOrEqual(20 + 5);
    // Every sentence appears in some chunk.
    for (const sentence of sentences)
      expect(chunks.some((chunk) => chunk.text.includes(sentence))).toBe(true);
    // Consecutive chunks overlap.
    const [first, second] = chunks;
    const lastWords = first?.text.split(' ').slice(-3).join(' ') ?? '';
    expect(second?.text.startsWith(lastWords) || second?.text.includes(lastWords)).toBe(true);
  });

  it('splits a single enormous sentence by words', () => {
    const chunks = chunkDocument('word '.repeat(95), {
      format: 'text',
      targetTokens: 30,
      overlapTokens: 0,
      count,
    });
    expect(chunks.map((chunk) => chunk.tokens)).toEqual([30, 30, 30, 5]);
  });

  it('keeps short sections whole even when they are smaller than the overlap', () => {
    const document =
      '# Policy\n## Vacation\nEmployees get 25 days.\n## Expenses\nSubmit receipts within 30 days.';
    const chunks = chunkDocument(document, {
      format: 'markdown',
      targetTokens: 100,
      overlapTokens: 50,
      count,
    });
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      'Policy > Vacation\nEmployees get 25 days.',
      'Policy > Expenses\nSubmit receipts within 30 days.',
    ]);
  });

  it('keeps headings of one level siblings when a level is skipped', () => {
    const chunks = chunkDocument(
      [
        '## Install',
        'Run it.',
        '## Refunds',
        'Within 30 days.',
        '# Guide',
        '### Contact',
        'Mail us.',
        '### Hours',
        'Nine to five.',
      ].join('\n'),
      { format: 'markdown', targetTokens: 100, overlapTokens: 0, count },
    );
    expect(chunks.map((chunk) => chunk.headings)).toEqual([
      ['Install'],
      ['Refunds'],
      ['Guide', 'Contact'],
      ['Guide', 'Hours'],
    ]);
  });

  it('splits Chinese text at its sentence ends, and overlaps it by characters', () => {
    const sentence = (index: number) => `第${index}句话说明了退货政策的一个细节。`;
    const content = Array.from({ length: 40 }, (_, index) => sentence(index)).join('');
    const perChar = (text: string) => [...text.replace(/\s/g, '')].length;
    const chunks = chunkDocument(content, {
      format: 'markdown',
      targetTokens: 60,
      overlapTokens: 10,
      count: perChar,
    });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(perChar(chunk.text)).toBeLessThanOrEqual(60 + 10);
    // A chunk ends at a sentence end; the next starts with the previous one's last characters.
    expect(chunks[0]?.text.endsWith('。')).toBe(true);
    const lastOfFirst = chunks[0]?.text.slice(-5) ?? '';
    expect(chunks[1]?.text.includes(lastOfFirst)).toBe(true);
  });

  it('returns nothing for blank input', () => {
    expect(
      chunkDocument(' \n\n ', { format: 'markdown', targetTokens: 50, overlapTokens: 10, count }),
    ).toEqual([]);
  });
});

describe('chunkDocument on hostile input', () => {
  const options = { format: 'markdown' as const, targetTokens: 50, overlapTokens: 5, count };

  it('reads a heading with a long run of spaces in linear time, and trims closing hashes', () => {
    // `(.+?)\s*#*\s*$` took 49 s on 4,000 spaces (cubic backtracking).
    const [chunk] = chunkDocument(`# Title${' '.repeat(50_000)}x ##\nbody`, options);
    expect(chunk?.headings[0]).toMatch(/^Title {50000}x$/);
    expect(chunkDocument('## C# notes ##\nbody', options)[0]?.headings).toEqual(['C# notes']);
  });

  it('yields a step per block and per piece, so a caller can pause between them', () => {
    const content = Array.from({ length: 40 }, (_, index) => `Paragraph ${index} has words.`).join('\n\n');
    const steps = [...chunkDocumentSteps(content, options)];
    expect(steps.filter((step) => step === null).length).toBeGreaterThanOrEqual(40);
    expect(steps.filter((step) => step !== null)).toEqual(chunkDocument(content, options));
  });

  it('cuts a word longer than any chunk into slices instead of one giant chunk', () => {
    const chunks = chunkDocument('x'.repeat(100_000), {
      ...options,
      count: (text) => Math.ceil(text.length / 4),
    });
    expect(chunks.length).toBeGreaterThan(100);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(400);
  });
});
