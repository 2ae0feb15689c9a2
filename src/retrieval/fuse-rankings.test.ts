import { describe, expect, it } from 'vitest';
import { fuseRankings } from './fuse-rankings.js';

describe('fuseRankings', () => {
  it('rewards agreement between lists and keeps each list rank', () => {
    const fused = fuseRankings([
      [
        { id: 'x', score: 9 },
        { id: 'y', score: 5 },
      ],
      [
        { id: 'y', score: 0.9 },
        { id: 'z', score: 0.8 },
      ],
    ]);
    expect(fused.map((hit) => hit.id)).toEqual(['y', 'x', 'z']);
    expect(fused[0]?.ranks).toEqual([2, 1]);
    expect(fused[2]?.ranks).toEqual([null, 2]);
  });
});
