import { execFile } from 'node:child_process';
import fs, { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useTemporaryDirectories } from '../../test/support/temporary-directories.js';
import { EngramError } from '../core/errors.js';
import { flushLogSync } from './fatal-handlers.js';
import { createServerLogger } from './server-logger.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-logger-');
const temporaryLog = () => join(temporaryDirectory(), 'server.log');
const linesOf = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { n: number; msg: string });

describe('createServerLogger', () => {
  const descriptors: number[] = [];
  const open = (path: string) => {
    const fd = openSync(path, 'a');
    descriptors.push(fd);
    return fd;
  };
  afterEach(() => {
    for (const fd of descriptors.splice(0)) closeSync(fd);
  });

  it('writes every line, in order, by flush (a few lines and many chunks of them)', async () => {
    for (const count of [3, 2_000]) {
      const path = temporaryLog();
      const logger = createServerLogger('info', open(path));
      for (let n = 0; n < count; n++) logger.info({ n }, 'request');
      await new Promise<void>((resolve, reject) =>
        logger.flush((error) => (error ? reject(error) : resolve())),
      );
      expect(linesOf(path).map((line) => line.n)).toEqual(Array.from({ length: count }, (_, n) => n));
    }
  });

  it('logs errors content-free (background and fatal lines too, which bypass the server)', () => {
    const path = temporaryLog();
    const logger = createServerLogger('info', open(path));
    const error = new EngramError('llm_output_invalid', 'unavailable', 'not the JSON asked for', {
      details: { excerpt: 'my password is ZEBRA-SECRET-4711', attempts: 2 },
    });
    logger.error({ err: error }, 'background work failed');
    flushLogSync(logger);
    const [line] = linesOf(path) as unknown as { err: Record<string, unknown> }[];
    expect(line?.err).toMatchObject({ code: 'llm_output_invalid', details: { attempts: 2 } });
    expect(readFileSync(path, 'utf8')).not.toContain('ZEBRA-SECRET-4711');
  });

  it('writes every line by flushSync (what the fatal handlers call), never leaving one to the thread pool', () => {
    const path = temporaryLog();
    const logger = createServerLogger('info', open(path));
    for (let n = 0; n < 5; n++) logger.warn({ n }, 'shutting down');
    // Asynchronous writes never complete here, as in a process that exits right after the flush.
    const write = vi.spyOn(fs, 'write').mockImplementation(() => {});
    try {
      flushLogSync(logger);
    } finally {
      write.mockRestore();
    }
    expect(linesOf(path).map((line) => line.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('writes the gathered lines when the process exits without a flush', async () => {
    const path = temporaryLog();
    const script = [
      "import { openSync } from 'node:fs';",
      "import { createServerLogger } from './src/server/server-logger.ts';",
      `const logger = createServerLogger('info', openSync(${JSON.stringify(path)}, 'a'));`,
      "logger.info({ n: 1 }, 'last words');",
      'process.exit(0);',
    ].join('\n');
    await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(linesOf(path)).toEqual([expect.objectContaining({ n: 1, msg: 'last words' })]);
  });
});
