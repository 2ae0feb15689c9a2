import type { Pause } from '../../engine/parse-in-slices.js';
import type { JsonBodySource } from '../read-json-body.js';
import { readBodyMappingItems } from '../request-parts.js';
import { toPutMessageInput } from './working-memory-mapper.js';
import { amsWorkingMemoryBodyInSlices } from './working-memory-schemas.js';

/** AMS's `x-deprecation-warning` for a PUT with messages that have no `created_at`. */
export const UNDATED_WARNING =
  'messages[].created_at will become required in the next major version. Please provide timestamps for all messages.';

/**
 * A working-memory PUT body read and validated, each message mapped to engram's input as soon as
 * it is validated (so that the validated copies die young), and whether any message came
 * undated: the route's read, on the request thread or in the PUT worker.
 */
export async function readPutBody(source: JsonBodySource, pause: Pause) {
  let undated = false;
  const body = await readBodyMappingItems(source, amsWorkingMemoryBodyInSlices, pause, (message) => {
    if (!message.created_at) undated = true;
    return toPutMessageInput(message);
  });
  return { body, undated };
}
