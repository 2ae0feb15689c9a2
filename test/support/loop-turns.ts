/**
 * Counts the turns of the event loop from now on: an immediate that queues itself again runs once
 * per check phase. `turns` is the count so far; `stop()` ends the counting and returns it.
 */
export function countLoopTurns(): { readonly turns: number; stop(): number } {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop() {
      running = false;
      return turns;
    },
  };
}
