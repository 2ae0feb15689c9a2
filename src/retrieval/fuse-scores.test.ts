import { describe, expect, it } from 'vitest';
import { fuseScores } from './fuse-scores.js';

describe('fuseScores', () => {
  it('keeps score margins that reciprocal rank fusion would flatten', () => {
    const text = [
      { id: 'strong', score: 10 },
      { id: 'weak', score: 1 },
    ];
    const vector = [
      { id: 'weak', score: -0.2 },
      { id: 'other', score: -0.3 },
      { id: 'strong', score: -0.4 },
    ];
    const fused = fuseScores([text, vector], [1, 0.25], ['max', 'range']);
    expect(fused.map((hit) => hit.id)).toEqual(['strong', 'weak', 'other']);
    expect(fused[0]?.score).toBeCloseTo(1);
    expect(fused[1]?.score).toBeCloseTo(0.1 + 0.25);
    expect(fused[2]?.score).toBeCloseTo(0.125);
    expect(fused[2]?.ranks).toEqual([null, 2]);
  });

  it('gives a single or tied list full credit and breaks ties by id', () => {
    const fused = fuseScores(
      [
        [
          { id: 'b', score: 3 },
          { id: 'a', score: 3 },
        ],
      ],
      [2],
      ['range'],
    );
    expect(fused).toEqual([
      { id: 'a', score: 2, ranks: [2] },
      { id: 'b', score: 2, ranks: [1] },
    ]);
    expect(fuseScores([[], []], [1, 1], ['max', 'range'])).toEqual([]);
  });
});
