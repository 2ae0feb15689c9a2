/**
 * For tests that check that sliced work pauses in the shared queue (`nextTurn` of
 * src/core/event-loop-slicer.ts) rather than with an immediate of its own: the slicer module with
 * `nextTurn` recording each caller's stack. Use it from a `vi.mock` factory of that module, with
 * `stacks` made by `vi.hoisted`.
 */
export function recordingNextTurn<Slicer extends { nextTurn: () => Promise<void> }>(
  original: Slicer,
  stacks: string[],
): Slicer {
  return {
    ...original,
    nextTurn: () => {
      stacks.push(new Error().stack ?? '');
      return original.nextTurn();
    },
  };
}
