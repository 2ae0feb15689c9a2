/**
 * Runs one task per key at a time. A call made while one runs waits for it and then shares the
 * single run queued after it: each caller's run starts after its call (it sees every commit made
 * before the call), and a burst of callers costs two runs, not one each.
 */
export function coalescingQueue<T>() {
  const slots = new Map<string, { running: Promise<T>; queued?: Promise<T> }>();
  const launch = (key: string, task: () => Promise<T>): Promise<T> => {
    const slot: { running: Promise<T>; queued?: Promise<T> } = { running: task() };
    slots.set(key, slot);
    const clear = () => {
      if (slots.get(key) === slot && !slot.queued) slots.delete(key);
    };
    slot.running.then(clear, clear);
    return slot.running;
  };
  return (key: string, task: () => Promise<T>): Promise<T> => {
    const slot = slots.get(key);
    if (!slot) return launch(key, task);
    if (!slot.queued) {
      const ignore = () => undefined;
      slot.queued = slot.running.then(ignore, ignore).then(() => launch(key, task));
    }
    return slot.queued;
  };
}
