import type { FastifyReply } from 'fastify';
import { ALONE_CHARS, nextTurn } from '../engine/event-loop-slicer.js';

/**
 * An answer's JSON, for a route to return: the text (Fastify sends it as it would have serialized
 * `value`) or, for a long answer, its UTF-8 bytes made in a later turn of the event loop than the
 * text. Fastify would serialize, measure (`Buffer.byteLength`) and encode a long answer in one
 * step: for a 900 KB message echoed by an append, ~20 ms on the 2-vCPU development machine, each
 * pass over a fresh string. Here each step stands alone, with other requests between them.
 */
export async function jsonAnswer(reply: FastifyReply, value: unknown): Promise<string | Buffer> {
  reply.type('application/json; charset=utf-8');
  const text = JSON.stringify(value);
  if (text.length < ALONE_CHARS) return text;
  await nextTurn();
  const bytes = Buffer.from(text);
  await nextTurn();
  return bytes;
}
