import { describe, expect, it } from 'vitest';
import { AmsHttpError } from './ams-http-error.js';
import { toSessionInput } from './working-memory-mapper.js';
import { amsWorkingMemoryBodySchema } from './working-memory-schemas.js';

const bodyOf = (contents: string[]) =>
  amsWorkingMemoryBodySchema.parse({
    messages: contents.map((content, index) => ({ role: 'user', content, id: `m${index}` })),
  });

describe('toSessionInput', () => {
  it('pauses before each message and keeps their order and ids', async () => {
    let pauses = 0;
    const input = await toSessionInput(bodyOf(['a', 'b', 'c']), async () => {
      pauses++;
    });
    expect(pauses).toBe(3);
    expect(input.messages?.map((message) => [message.id, message.content])).toEqual([
      ['m0', 'a'],
      ['m1', 'b'],
      ['m2', 'c'],
    ]);
  });

  it('answers 400 naming the first blank message, wherever it is', async () => {
    const contents = Array.from({ length: 1_000 }, (_, index) =>
      index === 998 || index === 999 ? ' ' : 'x',
    );
    const failure = toSessionInput(bodyOf(contents), async () => {});
    await expect(failure).rejects.toBeInstanceOf(AmsHttpError);
    await expect(failure).rejects.toThrow('Message content cannot be empty (message ID: m998)');
  });
});
