import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { createProgressBar } from './progress-bar.js';

function stream(isTTY: boolean) {
  const output = Object.assign(new PassThrough(), { isTTY, columns: 120 }) as unknown as CliIo['stderr'] &
    PassThrough;
  let text = '';
  output.on('data', (chunk) => {
    text += chunk;
  });
  return { output, text: () => text };
}

describe('progress bar', () => {
  it('on a terminal, draws a bar with count, rate and ETA in place', async () => {
    const { output, text } = stream(true);
    let now = 0;
    const bar = createProgressBar(output, { label: 'import', total: 200, now: () => now });
    now = 2_000;
    bar.increment(50);
    bar.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(text()).toMatch(/import \[[█░]+\] 25% \| 50\/200 \| 25\.0\/s \| ETA \d+s/);
    // Redrawn in place (cursor moves), not printed as new lines per update.
    expect(text()).toContain('\u001b[');
  });

  it('off a terminal, prints a plain line per 10 % step and a last one, with rate and ETA', () => {
    const { output, text } = stream(false);
    let now = 0;
    const bar = createProgressBar(output, { label: 'ingest', total: 100, now: () => now });
    for (let item = 0; item < 100; item++) {
      now += 100;
      bar.increment();
    }
    bar.stop();
    const lines = text().trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('ingest: 10/100 (10%), 10.0/s, ETA 9s');
    expect(lines.at(-1)).toBe('ingest: 100/100 (100%), 10.0/s, ETA 0s');
  });

  it('off a terminal, also prints at most once a second between steps', () => {
    const { output, text } = stream(false);
    let now = 0;
    const bar = createProgressBar(output, { label: 'export', total: 1_000 });
    const slow = createProgressBar(output, { label: 'slow', total: 1_000, now: () => now });
    bar.increment();
    for (let item = 0; item < 5; item++) {
      now += 1_500;
      slow.increment();
    }
    expect(text().match(/^slow: /gm)).toHaveLength(5);
    expect(text()).not.toContain('export:');
  });
});
