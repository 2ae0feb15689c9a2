import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('engram/client', () => {
  it('loads none of the server’s code: everything it takes from the server is `import type`', () => {
    const directory = new URL('.', import.meta.url);
    const valueImports = readdirSync(directory)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .flatMap((file) =>
        [...readFileSync(new URL(file, directory), 'utf8').matchAll(/^import (?!type )[^;]*from '([^']+)'/gm)]
          .map((match) => match[1] as string)
          .filter((source) => !source.startsWith('./'))
          .map((source) => `${file}: ${source}`),
      );
    expect(valueImports).toEqual([]);
  });
});
