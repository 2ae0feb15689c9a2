/**
 * For tests that check that sliced work pauses in the shared queue (`nextTurn` of
 * src/core/event-loop-slicer.ts) rather than with an immediate of its own. In the test file:
 *   vi.mock('…/core/event-loop-slicer.js', async (importOriginal) =>
 *     (await import('…/test/support/queued-turns.js')).recordingNextTurn(await importOriginal()));
 * then `queuedTurns` (every call's stack) and `queuedBy` say who queued turns.
 */

/** The stacks of every `nextTurn` call since the test file loaded (clear it with `.length = 0`). */
export const queuedTurns: string[] = [];

/** The slicer module with `nextTurn` recording each caller's stack in `queuedTurns`. */
export function recordingNextTurn<Slicer extends { nextTurn: () => Promise<void> }>(
  original: Slicer,
): Slicer {
  return {
    ...original,
    nextTurn: () => {
      queuedTurns.push(new Error().stack ?? '');
      return original.nextTurn();
    },
  };
}

/** How many recorded turns were queued directly by function `name` of a file whose path holds `file`. */
export function queuedBy(name: string, file: string): number {
  const caller = new RegExp(`at ${name} \\(.*${file}`);
  return queuedTurns.filter((stack) => caller.test(stack)).length;
}
