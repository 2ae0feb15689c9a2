/** Filters whose verdicts are kept per collection (a byte per slot each), least recently used dropped. */
const KEPT_FILTERS = 16;

/**
 * What each filter answered for each slot of a collection (a text index's documents, a vector
 * collection's rows): 0 not asked yet, 1 accepted, 2 rejected. A turn's working set asks the same
 * filter of the same user's records on every turn, and asking it reads the record, scattered in a
 * large heap: a byte per slot answers again without that read. A verdict holds until its slot's
 * fields change, which the owner reports (`forget` one slot, `clear` all).
 */
export class SlotVerdicts {
  private readonly byFilter = new Map<string, Int8Array>();

  /**
   * `ask` answering from the verdicts kept under `key` (asked once per slot), or `ask` itself when
   * `key` is undefined (a filter whose answers change without the owner knowing, such as one on
   * access times). `slots` is how many slots the collection has now.
   */
  acceptor(
    key: string | undefined,
    slots: number,
    ask: (slot: number) => boolean,
  ): (slot: number) => boolean {
    if (key === undefined) return ask;
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
    return (slot) => {
      const verdict = kept[slot];
      if (verdict === 1) return true;
      if (verdict === 2) return false;
      const accepted = ask(slot);
      kept[slot] = accepted ? 1 : 2;
      return accepted;
    };
  }

  /** Drops every filter's verdict on `slot` (its fields changed, or it holds another record now). */
  forget(slot: number): void {
    for (const verdicts of this.byFilter.values()) if (slot < verdicts.length) verdicts[slot] = 0;
  }

  /** Drops every verdict (fields of any slot may have changed). */
  clear(): void {
    this.byFilter.clear();
  }
}
