import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/**
 * The package as a user gets it: built and packed (`npm pack`), unpacked into a fresh project's
 * node_modules (its dependencies linked from this checkout's, since tests run offline), then used
 * the way the README says: `import … from 'engram'` and the `engram` bin. The build runs in a copy
 * of the checkout, so this checkout's dist/ (which other tests may read meanwhile) is left alone.
 */
const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-package-');
const root = resolve('.');
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

let packed: string[] = [];
let project = '';
/** A copy of the checkout's sources, where the package is built and `npm start` runs. */
let checkout = '';

/** Code blocks of a Markdown file that are whole programs importing from 'engram'. */
function examples(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((code) => /^import .* from 'engram';$/m.test(code) && !code.includes('…'));
}

beforeAll(async () => {
  checkout = temporaryDirectory();
  for (const entry of [
    'package.json',
    'README.md',
    'LICENSE',
    'tsconfig.json',
    'tsconfig.build.json',
    'bin',
    'scripts',
    'src',
  ]) {
    cpSync(join(root, entry), join(checkout, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  await run('npm', ['run', 'build'], { cwd: checkout });
  const destination = temporaryDirectory();
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', destination],
    {
      cwd: checkout,
    },
  );
  const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packed = result?.files.map((file) => file.path) ?? [];

  project = temporaryDirectory();
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  await run('tar', ['-xzf', join(destination, result?.filename ?? ''), '-C', modules]);
  await run('mv', [join(modules, 'package'), join(modules, 'engram')]);
  // The package's own dependencies, and @types for type-checking the examples.
  symlinkSync(join(root, 'node_modules'), join(modules, 'engram', 'node_modules'), 'dir');
  symlinkSync(join(root, 'node_modules', '@types'), join(modules, '@types'), 'dir');
  symlinkSync('../engram/bin/engram.js', join(modules, '.bin', 'engram'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module' }));
}, 180_000);

describe('npm pack', () => {
  it('ships the build (the web UI too), the bin, LICENSE and README, and no tests, sources or source maps', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/engram.js',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'dist/providers/embeddings/data/word-vectors.bin',
        // The UI `engram serve` answers at /ui: built by `npm run build`, never by the user.
        'dist/ui/index.html',
        'dist/ui/app.js',
      ]),
    );
    expect(packed.filter((path) => /\.test\.|\.map$|^src\/|^test\/|^bench\//.test(path))).toEqual([]);
  });
});

describe('the installed package', () => {
  it('runs the README and docs examples, importing from engram, and their types check', async () => {
    const programs = [
      ...examples('README.md'),
      ...examples('docs/llm.md'),
      ...examples('docs/embeddings.md'),
    ];
    expect(programs.length).toBeGreaterThanOrEqual(4);
    const files = programs.map((code, index) => {
      const file = join(project, `example-${index}.mts`);
      writeFileSync(file, code);
      return file;
    });
    // Type-checked against the package's declarations, then compiled and run with plain node.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          target: 'ES2022',
          strict: true,
          skipLibCheck: true,
          types: ['node'],
          outDir: 'out',
        },
        files: files.map((file) => file.slice(project.length + 1)),
      }),
    );
    await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: project });
    const outputs = [];
    for (const [index] of files.entries()) {
      outputs.push(
        (await run('node', [join(project, 'out', `example-${index}.mjs`)], { cwd: project })).stdout,
      );
    }
    expect(outputs[0]).toMatch(/used: \d+/);
    expect(outputs.join('\n')).toContain('Ada prefers replacements over refunds.');
  }, 120_000);

  it('has an engram bin that prints its version and help', async () => {
    const bin = join(project, 'node_modules', '.bin', 'engram');
    expect((await run(bin, ['--version'], { cwd: project })).stdout.trim()).toBe(manifest.version);
    expect((await run(bin, ['help'], { cwd: project })).stdout).toContain('engram ingest');
  }, 60_000);
});

describe('npx engram in a clone', () => {
  it('runs the project’s own bin at once, as docs/cli.md says (version and help)', async () => {
    // `checkout` is a clone after `npm install`: dist/ built and stamped, as `prepare` leaves it.
    // npx links the project into its own cache by its package name and reruns `prepare` there,
    // which must find the build current instead of rebuilding. A private cache, so an earlier run
    // elsewhere proves nothing; never the registry.
    const env = {
      ...process.env,
      npm_config_cache: temporaryDirectory(),
      npm_config_yes: 'false',
      npm_config_offline: 'true',
    };
    const npx = (args: string[]) => run('npx', ['engram', ...args], { cwd: checkout, env });
    expect((await npx(['--version'])).stdout.trim()).toBe(manifest.version);
    const help = (await npx(['help'])).stdout;
    for (const command of ['serve', 'mcp', 'import', 'export', 'ingest', 'inspect', 'doctor']) {
      expect(help).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  }, 60_000);

  it('skips the build in `prepare` when dist/ matches the sources', async () => {
    const { stdout } = await run('npm', ['run', 'prepare'], { cwd: checkout });
    expect(stdout).toContain('dist/ is up to date with the sources: nothing to build');
  }, 60_000);
});

describe('npm start', () => {
  it('stops the server when npm itself gets SIGTERM (the port is freed)', async () => {
    const database = join(temporaryDirectory(), 'start.db');
    const child: ChildProcess = spawn('npm', ['start'], {
      cwd: checkout,
      env: { ...process.env, ENGRAM_PORT: '0', ENGRAM_DATABASE_PATH: database, ENGRAM_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) resolveUrl(match[1]);
      });
      child.once('exit', () => reject(new Error(`npm start exited early: ${stderr}`)));
    });
    expect((await fetch(`${url}/v1/health`)).status).toBe(200);
    const exited = once(child, 'exit');
    child.kill('SIGTERM'); // the npm process, as a supervisor would
    await exited;
    // The server went with it: nothing listens on its port any more.
    await expect
      .poll(() =>
        fetch(`${url}/v1/health`).then(
          () => 'open',
          () => 'closed',
        ),
      )
      .toBe('closed');
  }, 60_000);
});
