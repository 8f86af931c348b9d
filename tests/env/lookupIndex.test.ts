import { describe, expect, it } from 'vitest';
import { KeyedLists } from '../../src/env/lookupIndex.ts';
import { runSteps } from '../../src/io/interrupt.ts';

/** What a Map of arrays holds for the same keys: the lists KeyedLists stands in for. */
function mapOf<K>(keyOf: (i: number) => K | undefined, count: number): Map<K, number[]> {
  const map = new Map<K, number[]>();
  for (let i = 0; i < count; i++) {
    const key = keyOf(i);
    if (key !== undefined) map.set(key, [...(map.get(key) ?? []), i]);
  }
  return map;
}

describe('lookup lists in typed arrays (KeyedLists)', () => {
  // 3,000 responses under 1,700 keys in 2,048 buckets (some not listed): many buckets hold several keys.
  const count = 3000;
  const keyOf = (i: number) => (i % 7 === 3 ? undefined : `q${(i * 13) % 1700}|${i % 5 === 0 ? 'x' : 'y'}`);

  it('answers every key with its responses in response order, as a Map of arrays would, though keys share buckets', () => {
    const lists = runSteps(new KeyedLists(keyOf).fill(count, 256));
    const map = mapOf(keyOf, count);
    for (const [key, list] of map) expect(lists.get(key), key).toEqual(list);
    expect([...lists].sort()).toEqual([...map].sort());
    expect(lists.get('q1|z')).toBeUndefined();
    for (const key of map.keys()) expect(lists.has(key), key).toBe(true);
    for (const key of ['q1|z', 'q1700|y', 'q3|']) expect(lists.has(key), key).toBe(false);
  });

  it('lists responses added after the build after the built ones, and sorts each built list by the rank asked', () => {
    const round1 = (i: number) => (i % 4 === 0 ? undefined : (i * 7919) % 500);
    const sample = (i: number) => (i * 31) % 3; // ties within a list: they keep response order
    const lists = runSteps(new KeyedLists(round1).fill(count, 256, sample));
    for (const [key, list] of mapOf(round1, count)) expect(lists.get(key), String(key)).toEqual([...list].sort((x, y) => sample(x) - sample(y) || x - y));
    const before = lists.get(17)!;
    lists.add(17, count);
    lists.add(-1, count + 1);
    expect(lists.get(17)).toEqual([...before, count]);
    expect(lists.get(-1)).toEqual([count + 1]);
    expect(lists.has(-1)).toBe(true);
    // A fill lists the cache as it is then: what was added before is among it or not, never twice.
    runSteps(lists.fill(count, 256));
    expect(lists.get(-1)).toBeUndefined();
  });
});
