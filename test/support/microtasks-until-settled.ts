/**
 * How many microtask turns pass before `promise` settles, up to `limit` (then `limit`: work that
 * waits for a macrotask, a timer or I/O, would never settle while this spins). Work that awaits
 * once per item takes at least one turn per item; work that awaits only when it yields takes a
 * handful: a test of "no `await` per item" that does not depend on timing.
 */
export async function microtasksUntilSettled(promise: Promise<unknown>, limit = 100_000): Promise<number> {
  let settled = false;
  const settle = () => {
    settled = true;
  };
  promise.then(settle, settle);
  let turns = 0;
  while (!settled && turns < limit) {
    await Promise.resolve();
    turns++;
  }
  return turns;
}
