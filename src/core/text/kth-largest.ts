/**
 * The `k`-th largest of the first `count` values (1-based: `k = 1` is the largest), by
 * quickselect (Hoare's partition, median-of-three pivots): linear time on average, no allocation.
 * Reorders those values in place. `k` is clamped to `[1, count]`; `count` 0 gives -Infinity.
 */
export function kthLargest(values: Float64Array, count: number, k: number): number {
  if (count <= 0) return Number.NEGATIVE_INFINITY;
  // The k-th largest is the element of rank `count - k` in ascending order.
  const target = count - Math.min(Math.max(k, 1), count);
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const pivot = medianOfThree(values[low] as number, values[middle] as number, values[high] as number);
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] as number) < pivot) left++;
      while ((values[right] as number) > pivot) right--;
      if (left <= right) {
        const swap = values[left] as number;
        values[left] = values[right] as number;
        values[right] = swap;
        left++;
        right--;
      }
    }
    // Now [low, right] ≤ pivot ≤ [left, high], and anything strictly between equals the pivot.
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else return pivot;
  }
  return values[target] as number;
}

function medianOfThree(a: number, b: number, c: number): number {
  if (a < b) return b < c ? b : a < c ? c : a;
  return a < c ? a : b < c ? c : b;
}
