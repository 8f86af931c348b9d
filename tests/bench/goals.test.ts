import { describe, expect, it } from 'vitest';
import { beside, goalTable, hasFigures, verdict } from '../../bench/goals.ts';

describe('figures beside their goals', () => {
  it('say met, or what a goal is missed by in the unit and as a share of the goal', () => {
    expect(verdict(2.4, 's', { limit: 2.5, atMost: true })).toBe('goal <= 2.50 s -> met');
    expect(verdict(3, 's', { limit: 2.5, atMost: true })).toBe('goal <= 2.50 s -> NOT met (missed by 0.50 s, 20%)');
    expect(verdict(540, 'MB', { limit: 450, atMost: true })).toBe('goal <= 450 MB -> NOT met (missed by 90 MB, 20%)');
    expect(verdict(2, 'x', { limit: 1.6, atMost: true })).toBe('goal <= 1.60x -> NOT met (missed by 0.40x, 25%)');
    // A share is missed by points, a rate from below.
    expect(verdict(75, '%', { limit: 80, atMost: false })).toBe('goal >= 80% -> NOT met (missed by 5 points)');
    expect(verdict(46819, 'debates/s', { limit: 20000, atMost: false })).toBe('goal >= 20,000 debates/s -> met');
  });

  it('keep every figure for one closing Markdown table, each with the load it was taken under', () => {
    expect(hasFigures()).toBe(false);
    expect(beside('main job', 24, 's', { limit: 20, atMost: true }, 'once')).toBe('goal <= 20.00 s -> NOT met (missed by 4.00 s, 20%)');
    expect(beside('cache validate', 1.234, 's')).toBe('');
    const rows = goalTable()
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| ---'));
    expect(rows[0]).toBe('| figure | measured | goal | load (1 min) | note |');
    expect(rows[1]).toMatch(/^\| main job \| 24\.00 s \| <= 20\.00 s -> NOT met \(missed by 4\.00 s, 20%\) \| \d+\.\d \| once \|$/);
    expect(rows[2]).toMatch(/^\| cache validate \| 1\.23 s \| - \| \d+\.\d \| {2}\|$/);
  });
});
