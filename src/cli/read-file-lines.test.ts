import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readFileLines } from './read-file-lines.js';

let directory = '';
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function read(content: Buffer | string, maxLineBytes: number): Promise<string[]> {
  directory = mkdtempSync(join(tmpdir(), 'engram-lines-'));
  const file = join(directory, 'lines.txt');
  writeFileSync(file, content);
  const lines: string[] = [];
  for await (const line of readFileLines(file, { maxLineBytes })) lines.push(line);
  return lines;
}

describe('readFileLines', () => {
  it('joins a line read in several chunks, counting its bytes across them', async () => {
    // Longer than a read stream's chunk (64 KiB), with a character split between chunks.
    const long = `${'a'.repeat(65_535)}é${'b'.repeat(100_000)}`;
    expect(await read(`first\n${long}\r\nlast`, 200_000)).toEqual(['first', long, 'last']);
    await expect(read(`first\n${long}\nlast`, 100_000)).rejects.toThrow('line 2 is longer than 100000 bytes');
  });
});
