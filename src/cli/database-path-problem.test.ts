import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePathProblem } from './database-path-problem.js';

describe('databasePathProblem', () => {
  const root = mkdtempSync(join(tmpdir(), 'engram-db-path-'));

  it('accepts a path whose missing directories can be created', () => {
    expect(databasePathProblem(join(root, 'a', 'b', 'engram.db'))).toBeNull();
  });

  it('names the file that stands where a directory must be', () => {
    const file = join(root, 'plain-file');
    writeFileSync(file, 'x');
    expect(databasePathProblem(join(file, 'sub', 'engram.db'))).toBe(
      `cannot be created: ${file} is not a directory`,
    );
  });
});
