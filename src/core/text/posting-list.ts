/**
 * The postings of one term: document slots in ascending order with their term frequencies, in
 * growable typed arrays (slots only grow, so appends keep the order), plus what a score bound
 * needs: the largest frequency and the shortest document length among them.
 */
export class PostingList {
  documents = new Int32Array(4);
  frequencies = new Int32Array(4);
  size = 0;
  /** Upper bounds for dynamic pruning: never below the true maximum frequency / above the minimum length. */
  maxFrequency = 0;
  minLength = Number.POSITIVE_INFINITY;

  /** Appends a posting; `document` must exceed every slot already held. */
  append(document: number, frequency: number, length: number): void {
    if (this.size === this.documents.length) {
      const documents = new Int32Array(this.size * 2);
      documents.set(this.documents);
      this.documents = documents;
      const frequencies = new Int32Array(this.size * 2);
      frequencies.set(this.frequencies);
      this.frequencies = frequencies;
    }
    this.documents[this.size] = document;
    this.frequencies[this.size] = frequency;
    this.size++;
    if (frequency > this.maxFrequency) this.maxFrequency = frequency;
    if (length < this.minLength) this.minLength = length;
  }

  /** Removes `document`'s posting (if any); `lengths` gives document lengths to tighten the bounds. */
  remove(document: number, lengths: Int32Array): void {
    const position = this.seek(0, document);
    if (position >= this.size || this.documents[position] !== document) return;
    const frequency = this.frequencies[position] ?? 0;
    const length = lengths[document] ?? 0;
    this.documents.copyWithin(position, position + 1, this.size);
    this.frequencies.copyWithin(position, position + 1, this.size);
    this.size--;
    if (frequency === this.maxFrequency || length === this.minLength) this.recomputeBounds(lengths);
  }

  /** The first position at or after `from` whose document is at least `target` (`size` if none). */
  seek(from: number, target: number): number {
    const documents = this.documents;
    const size = this.size;
    if (from >= size || (documents[from] ?? 0) >= target) return from;
    // Gallop to bracket the target, then binary search: cheap for both short and long skips.
    let low = from;
    let step = 1;
    let high = from + 1;
    while (high < size && (documents[high] ?? 0) < target) {
      low = high;
      step *= 2;
      high = from + step;
    }
    if (high > size) high = size;
    // Invariant: documents[low] < target, and high === size or documents[high] >= target.
    while (low + 1 < high) {
      const middle = (low + high) >>> 1;
      if ((documents[middle] ?? 0) < target) low = middle;
      else high = middle;
    }
    return high;
  }

  private recomputeBounds(lengths: Int32Array): void {
    this.maxFrequency = 0;
    this.minLength = Number.POSITIVE_INFINITY;
    for (let position = 0; position < this.size; position++) {
      const frequency = this.frequencies[position] ?? 0;
      const length = lengths[this.documents[position] ?? 0] ?? 0;
      if (frequency > this.maxFrequency) this.maxFrequency = frequency;
      if (length < this.minLength) this.minLength = length;
    }
  }
}
