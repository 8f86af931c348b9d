import { describe, expect, it } from 'vitest';
import { actionIndex, actionOf, actionsPerDebate, actionsPerRound, candidateOrder } from '../../src/env/actions.ts';

describe('the action index of a debate', () => {
  it('numbers (round, recipient, candidate) round-major, then recipient, then candidate, from 0 without gaps', () => {
    for (const [A, R] of [
      [3, 3],
      [4, 2],
      [2, 5],
    ]) {
      let x = 0;
      for (let t = 2; t <= R; t++)
        for (let i = 0; i < A; i++)
          for (let j = 0; j < A; j++, x++) {
            expect(actionIndex(A, t, i, j)).toBe(x);
            expect(actionOf(A, x)).toEqual({ t, i, j });
          }
      expect(actionsPerDebate(A, R)).toBe(x);
      expect(actionsPerRound(A) * (R - 1)).toBe(x);
    }
  });

  it('candidate 0 is the recipient itself, then the others in team order', () => {
    expect(candidateOrder(3, 0)).toEqual([0, 1, 2]);
    expect(candidateOrder(3, 1)).toEqual([1, 0, 2]);
    expect(candidateOrder(4, 3)).toEqual([3, 0, 1, 2]);
  });
});
