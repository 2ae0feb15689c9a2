import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './http/test-server.js';
import { useTemporaryDirectories } from './support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-docs-');

/** The package's entry points, as a user imports them, and where their source is. */
const entryPoints: Record<string, string> = {
  engram: 'src/index.ts',
  'engram/client': 'src/client/index.ts',
  'engram/ai-sdk': 'src/integrations/ai-sdk/index.ts',
};

/**
 * The complete programs among the ```ts blocks of README.md and the Markdown files under docs/ (those that import the
 * package), named by file and position. Other blocks are fragments of a larger program (a call
 * on an `engram` made elsewhere, an interface excerpt) and are not compiled on their own.
 */
function tsBlocks(): { name: string; code: string }[] {
  const files = [
    'README.md',
    ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`),
  ];
  return files
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match, index) => ({
        name: `${file.replace(/[/.]/g, '-')}-${index + 1}`,
        code: match[1] ?? '',
      })),
    )
    .filter((block) => /from 'engram(\/[\w-]+)?'/.test(block.code));
}

/** A block with the package's imports pointed at the source, runnable by tsx from anywhere. */
const runnable = (code: string) =>
  code.replace(/from '(engram(?:\/[\w-]+)?)'/g, (whole, name: string) =>
    entryPoints[name] ? `from ${JSON.stringify(resolve(entryPoints[name]))}` : whole,
  );

/**
 * Factories the docs describe as internals (each with its source path), not exported. Everything
 * else the docs call as `createXxx(` must be importable from an entry point.
 */
const INTERNAL_FACTORIES = ['createLlmSummaryWriter', 'createMcpServer'];

describe('factories named in the docs', () => {
  it('are exported by an entry point, or are listed as internal', async () => {
    const files = [
      'README.md',
      ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ];
    const named = new Set(
      files.flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\b(create[A-Z]\w*)\(/g)].map((match) => match[1] ?? ''),
      ),
    );
    const exported = new Set<string>();
    for (const file of Object.values(entryPoints)) {
      for (const name of Object.keys(await import(resolve(file)))) exported.add(name);
    }
    const missing = [...named].filter((name) => !exported.has(name) && !INTERNAL_FACTORIES.includes(name));
    expect(missing).toEqual([]);
    // The list stays honest: an internal factory that became public (or left the docs) leaves it.
    expect(INTERNAL_FACTORIES.filter((name) => exported.has(name) || !named.has(name))).toEqual([]);
    expect(named).toContain('createServerMetrics');
  }, 60_000);
});

describe('code blocks in the docs', () => {
  it('typecheck against the package’s entry points (strict, as a user’s project would)', async () => {
    // Inside the repository, so that node_modules (e.g. `ai`) resolves as it does for a user.
    const directory = resolve('node_modules/.cache/engram-docs-check');
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    const blocks = tsBlocks();
    expect(blocks.map((block) => block.name)).toEqual(
      expect.arrayContaining(['README-md-1', 'README-md-2', 'docs-client-md-1', 'docs-client-md-2']),
    );
    for (const block of blocks) writeFileSync(join(directory, `${block.name}.mts`), block.code);
    const paths = Object.fromEntries(
      Object.entries(entryPoints).map(([name, file]) => [name, [resolve(file)]]),
    );
    writeFileSync(
      join(directory, 'tsconfig.json'),
      JSON.stringify({
        extends: resolve('tsconfig.json'),
        compilerOptions: { noEmit: true, rootDir: resolve('.'), paths },
        include: ['*.mts'],
      }),
    );
    const result = await run(resolve('node_modules/.bin/tsc'), ['-p', directory]).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  }, 180_000);

  describe('docs/client.md runs as written', () => {
    const server = useTestServer();
    const blocks = () => tsBlocks().filter((block) => block.name.startsWith('docs-client-md'));

    it('the HTTP client example, against a live server', async () => {
      const [example] = blocks();
      const file = join(temporaryDirectory(), 'client.mts');
      writeFileSync(file, runnable(example?.code ?? ''));
      const { stdout } = await run(resolve('node_modules/.bin/tsx'), [file], {
        env: { ...process.env, ENGRAM_URL: server().url },
      });
      expect(stdout).toMatch(/^1 "\d+"$/m);
      expect(stdout).toContain('A replacement, please.');
      const session = await server().engram.sessions.get({ sessionId: 'chat-42', userId: 'ada' });
      expect(session?.data).toEqual({ plan: 'gold', visits: 1 });
    });

    it('the AI SDK middleware example', async () => {
      const example = blocks()[1];
      // Inside the repository, so that `ai` resolves; its in-memory store writes nothing there.
      const directory = resolve('node_modules/.cache/engram-docs-run');
      mkdirSync(directory, { recursive: true });
      const file = join(directory, 'ai-sdk.mts');
      writeFileSync(file, runnable(example?.code ?? ''));
      const { stdout } = await run(resolve('node_modules/.bin/tsx'), [file], { cwd: directory });
      expect(stdout.trim()).toBe('A replacement is on its way. 2');
    });
  });
});
