import type { IvfCell } from './ivf-cell.js';
import type { NearestHeap } from './nearest-heap.js';
import { CodeScreen, type VectorCodes } from './vector-codes.js';

/**
 * Probes cells as an IVF search chooses them (its order and stopping rule), scanning each with
 * `scanCell` and asking `held` how many accepted vectors a heap of the search's capacity would hold.
 */
export type CellProbe = (scanCell: (cell: IvfCell) => number, held: () => number) => number;

/**
 * An IVF search's scan of its probed cells, screened by their int8 codes (`CodeScreen`): the same
 * cells as the plain scan (a screen holds `limit` accepted rows exactly when a heap offered every
 * scanned vector would, so the stopping rule stops at the same cell), then exact distances only
 * for the vectors the codes cannot rule out, offered to `heap`: the same result, bit for bit.
 * Returns how many vectors were scanned and how many got an exact distance, or null having
 * offered nothing (a probed cell without codes, or a bound too close to 0 or 2): the caller then
 * scans the cells plainly.
 */
export function screenCells(
  scratch: VectorCodes,
  unit: Float32Array,
  limit: number,
  heap: NearestHeap,
  accept: ((key: number) => boolean) | undefined,
  probe: CellProbe,
): { scanned: number; exact: number } | null {
  const screen = new CodeScreen(scratch, unit, limit);
  const screened: { cell: IvfCell; from: number; to: number }[] = [];
  let complete = true;
  const scanned = probe(
    (cell) => {
      const { codes, keys } = cell;
      if (!codes) complete = false;
      if (!complete || !codes) return cell.count;
      const from = screen.found;
      const bytes = codes.bytes;
      screen.screen(bytes.codes, bytes.scales, bytes.norms, cell.count, (position) =>
        accept ? accept(keys[position] as number) : true,
      );
      screened.push({ cell, from, to: screen.found });
      return cell.count;
    },
    // Once a cell has no codes the answer is the plain scan's: stop probing at once.
    () => (complete ? screen.accepted : Number.POSITIVE_INFINITY),
  );
  if (!complete || !screen.usable) return null;
  for (const { cell, from, to } of screened) {
    const { keys } = cell;
    const keyOf = (position: number) => keys[position] as number;
    screen.offer(from, to, cell.vectors, heap, accept, keyOf, cell.inArena?.start);
  }
  return { scanned, exact: screen.exact };
}
