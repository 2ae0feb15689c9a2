import { describe, expect, it } from 'vitest';
import { boundedLines, requestIdOf } from './bounded-lines.js';

/** Feeds the chunks through a 10-byte limit; resolves the lines passed on and those refused. */
async function run(chunks: string[]) {
  const refused: { bytes: number; id: string | number | null }[] = [];
  const sizes: number[] = [];
  const stream = boundedLines(
    10,
    (line) => refused.push(line),
    (bytes) => sizes.push(bytes),
  );
  const passed: string[] = [];
  stream.on('data', (line: Buffer) => passed.push(line.toString('utf8')));
  for (const chunk of chunks) stream.write(Buffer.from(chunk));
  stream.end();
  await new Promise((resolve) => stream.once('end', resolve));
  expect(sizes).toEqual(passed.map((line) => Buffer.byteLength(line) - 1));
  return { passed, refused };
}

describe('boundedLines', () => {
  it('passes whole lines on, one at a time, however the chunks split them', async () => {
    expect((await run(['ab', 'c\nde', 'f\n', '0123456789\n'])).passed).toEqual([
      'abc\n',
      'def\n',
      '0123456789\n',
    ]);
  });

  it('refuses a line over the limit, whole, and goes on with the next', async () => {
    const { passed, refused } = await run(['{"id":7,', '"pad":"xxxxxxxx', 'xxxx"}\nok\n']);
    expect(passed).toEqual(['ok\n']);
    expect(refused).toEqual([{ bytes: 29, id: 7 }]);
  });

  it('refuses an overlong line that arrives in one chunk', async () => {
    expect(await run(['01234567890\nok\n'])).toEqual({
      passed: ['ok\n'],
      refused: [{ bytes: 11, id: null }],
    });
  });

  it('drops blank lines, which are no message (the SDK answered each with a parse error)', async () => {
    expect((await run(['\n', ' \r\n{}\n', '\t\n', 'ok\n'])).passed).toEqual(['{}\n', 'ok\n']);
  });

  it('never passes on an unfinished line', async () => {
    expect((await run(['ok\npartial'])).passed).toEqual(['ok\n']);
  });
});

describe('requestIdOf', () => {
  it('finds the id at the start or, as the TypeScript SDK writes it, at the end', () => {
    expect(requestIdOf('{"jsonrpc":"2.0","id":"a-1","method"', '')).toBe('a-1');
    expect(requestIdOf('{"method":"tools/call","params":{"id":9', '"x"}},"jsonrpc":"2.0","id":12}')).toBe(12);
  });

  it('does not take a nested id for the request’s', () => {
    expect(requestIdOf('{"method":"x","params":{"id":3', ',"arguments":{"id":4}}}')).toBeNull();
  });
});
