import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findDocuments } from './find-documents.js';

let directory = '';
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('findDocuments', () => {
  it('reports a link to nothing or to itself as unreadable and walks the rest; a link to an ancestor once', () => {
    directory = mkdtempSync(join(tmpdir(), 'engram-find-'));
    const tree = join(directory, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'a.md'), '# A');
    writeFileSync(join(tree, 'sub', 'b.md'), '# B');
    symlinkSync(join(directory, 'nowhere.md'), join(tree, 'dangling.md'));
    symlinkSync(join(tree, 'loop.md'), join(tree, 'loop.md'));
    symlinkSync(tree, join(tree, 'sub', 'back'));
    const found = findDocuments([tree]);
    expect(found.map(({ name, unreadable }) => [name, unreadable ?? null])).toEqual([
      ['a.md', null],
      ['dangling.md', 'cannot be read (ENOENT)'],
      ['loop.md', 'cannot be read (ELOOP)'],
      ['sub/b.md', null],
    ]);
  });
});
