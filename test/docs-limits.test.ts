import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

/** Every source file (tests excluded), relative to the repository root. */
function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

it('docs/server.md "Limits" names every MAX_* constant of src/ with its value', () => {
  const docs = readFileSync('docs/server.md', 'utf8');
  const limits = docs.slice(docs.indexOf('## Limits'), docs.indexOf('\n## ', docs.indexOf('## Limits') + 1));
  const missing: string[] = [];
  for (const file of sources('src')) {
    for (const [, name, value] of readFileSync(file, 'utf8').matchAll(/const (MAX_[A-Z_]+) = ([\d_]+);/g)) {
      // The value as the docs write it (1,000) on the constant's own row or sentence.
      const shown = Number(value?.replaceAll('_', '')).toLocaleString('en-US');
      const mention = limits.split('\n').find((line) => line.includes(`\`${name}\``)) ?? '';
      const near = mention.includes(shown) || limits.includes(`\`${name}\` ${shown}`);
      if (!near) missing.push(`${name} = ${shown} (${file})`);
    }
  }
  expect(missing).toEqual([]);
});
