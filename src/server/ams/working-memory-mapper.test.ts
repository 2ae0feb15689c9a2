import { describe, expect, it } from 'vitest';
import { AmsHttpError } from './ams-http-error.js';
import { toPutMessageInput, toSessionInput } from './working-memory-mapper.js';
import { amsWorkingMemoryBodySchema } from './working-memory-schemas.js';

const bodyOf = (contents: string[]) =>
  amsWorkingMemoryBodySchema.parse({
    messages: contents.map((content, index) => ({ role: 'user', content, id: `m${index}` })),
  });

describe('toPutMessageInput and toSessionInput', () => {
  it("keep the messages' order and ids (the engine gives ids to messages without one)", () => {
    const body = bodyOf(['a', 'b', 'c']);
    const input = toSessionInput(body, body.messages.map(toPutMessageInput));
    expect(input.messages?.map((message) => [message.id, message.content])).toEqual([
      ['m0', 'a'],
      ['m1', 'b'],
      ['m2', 'c'],
    ]);
    expect(toPutMessageInput({ role: 'user', content: 'x' })).toEqual({ role: 'user', content: 'x' });
  });

  it('answer 400 naming a blank message, by an id of its own when it has none', () => {
    const mapBlank = () => toPutMessageInput({ role: 'user', content: ' \n', id: 'm998' });
    expect(mapBlank).toThrow(AmsHttpError);
    expect(mapBlank).toThrow('Message content cannot be empty (message ID: m998)');
    expect(() => toPutMessageInput({ role: 'user', content: '' })).toThrow(
      /^Message content cannot be empty \(message ID: [0-9A-Z]{26}\)$/,
    );
  });
});
