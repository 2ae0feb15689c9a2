/** Filters whose verdicts are kept per index (a byte per slot each), least recently used dropped. */
const KEPT_FILTERS = 16;

/**
 * What each filter answered for each document slot: 0 not asked yet, 1 accepted, 2 rejected. A
 * turn's working set asks the same filter of the same user's documents on every turn, and asking
 * it reads the document's record, scattered in a large heap: a byte per slot answers again
 * without that read. Slots are never reused, so a verdict holds until its document's fields
 * change in place, which the owner reports (`forget`).
 */
export class SlotVerdicts {
  private readonly byFilter = new Map<string, Int8Array>();

  /**
   * `accept` answering from the verdicts kept under `key` (asked once per slot), or `accept`
   * itself when `key` is undefined (a filter whose answers change without the index knowing).
   */
  acceptor<Item>(
    key: string | undefined,
    slots: number,
    accept: (id: string, item: Item) => boolean,
  ): (slot: number, id: string, item: Item) => boolean {
    if (key === undefined) return (_slot, id, item) => accept(id, item);
    let verdicts = this.byFilter.get(key);
    if (verdicts === undefined || verdicts.length < slots) {
      const grown = new Int8Array(Math.max(slots, 2 * (verdicts?.length ?? 0), 1_024));
      if (verdicts) grown.set(verdicts);
      verdicts = grown;
    }
    // Re-inserted: the map's order is the order of last use.
    this.byFilter.delete(key);
    this.byFilter.set(key, verdicts);
    if (this.byFilter.size > KEPT_FILTERS) this.byFilter.delete(this.byFilter.keys().next().value as string);
    const kept = verdicts;
    return (slot, id, item) => {
      const verdict = kept[slot];
      if (verdict === 1) return true;
      if (verdict === 2) return false;
      const accepted = accept(id, item);
      kept[slot] = accepted ? 1 : 2;
      return accepted;
    };
  }

  /** Drops every filter's verdict on `slot` (its document's fields changed). */
  forget(slot: number): void {
    for (const verdicts of this.byFilter.values()) if (slot < verdicts.length) verdicts[slot] = 0;
  }
}
