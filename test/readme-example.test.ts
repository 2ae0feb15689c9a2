import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from './support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-readme-');

describe('README', () => {
  it('library example runs as written (on the embedded SQLite default)', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const directory = temporaryDirectory();
    const file = join(directory, 'example.mts');
    const entry = resolve('src/index.ts');
    writeFileSync(file, (example ?? '').replace("from 'engram'", `from ${JSON.stringify(entry)}`));
    const { stdout } = await run(resolve('node_modules/.bin/tsx'), [file], { cwd: directory });
    expect(stdout).toContain('history');
    expect(stdout).toMatch(/used: \d+/);
    // The default store is a SQLite file under ./data.
    expect(readFileSync(join(directory, 'data', 'engram.db')).length).toBeGreaterThan(0);
  });

  it('long-term memory example runs as written', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
    const example = examples.find((code) => code.includes('engram.knowledge.ingest'));
    expect(example).toBeDefined();
    const directory = temporaryDirectory();
    const file = join(directory, 'long-term.mts');
    writeFileSync(
      file,
      (example ?? '').replace("from 'engram'", `from ${JSON.stringify(resolve('src/index.ts'))}`),
    );
    const { stdout } = await run(resolve('node_modules/.bin/tsx'), [file], { cwd: directory });
    expect(stdout).toContain('Ada prefers replacements over refunds.');
    // The sections its comment names, in order.
    expect(stdout).toContain("[ 'system', 'procedure', 'knowledge', 'episodes', 'current' ]");
  });

  it('gives the two first-screen commands', () => {
    const firstScreen = readFileSync('README.md', 'utf8').split('\n').slice(0, 25).join('\n');
    expect(firstScreen).toContain('npm install && npm start');
    expect(firstScreen).toContain('npm test');
  });
});
