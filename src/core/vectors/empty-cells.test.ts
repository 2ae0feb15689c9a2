import { afterEach, describe, expect, it, vi } from 'vitest';
import { CentroidTree } from './centroid-tree.js';
import { emptyCells } from './empty-cells.js';
import { seededRandom } from './seeded-random.js';
import { VectorArena } from './vector-arena.js';

function smallTree(): CentroidTree {
  const random = seededRandom(3);
  const data = Float32Array.from({ length: 400 * 8 }, () => random() - 0.5);
  const steps = CentroidTree.trainInSteps({ data, dimensions: 8 }, 20, random);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

describe('emptyCells', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('puts the cells, their codes and a screening scratch in one arena', () => {
    const { cells, arena, scratch } = emptyCells(smallTree(), 8, 400, { arena: true, codes: true });
    expect(arena).not.toBeNull();
    expect(scratch?.arena).toBe(arena);
    expect(cells.every((cell) => cell.inArena?.arena === arena && cell.codes !== null)).toBe(true);
  });

  it('keeps the vectors in an arena without codes when one with room for them cannot be had', () => {
    const create = vi.spyOn(VectorArena, 'create');
    create.mockImplementationOnce(() => null);
    const { cells, arena, scratch } = emptyCells(smallTree(), 8, 400, { arena: true, codes: true });
    expect(create).toHaveBeenCalledTimes(2);
    const [withCodes, without] = create.mock.calls.map(([, floats]) => floats);
    expect(withCodes).toBeGreaterThan(without as number);
    expect(arena).not.toBeNull();
    expect(scratch).toBeNull();
    expect(cells.every((cell) => cell.inArena !== null && cell.codes === null)).toBe(true);
  });

  it('keeps everything in ordinary arrays when told to', () => {
    const { cells, arena, scratch } = emptyCells(smallTree(), 8, 400, { arena: false, codes: true });
    expect([arena, scratch]).toEqual([null, null]);
    expect(cells.every((cell) => cell.inArena === null && cell.codes === null)).toBe(true);
  });
});
