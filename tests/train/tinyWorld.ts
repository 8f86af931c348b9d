// A tiny cache where one edge always helps and one always hurts: a1 and a3 (wrong in round 1) end
// round 2 correct iff they kept a2's (right) answer and not the other wrong agent's; their own
// response does not matter. a2 is right and stays right whatever it keeps.
import type { CacheLine } from '../../src/cache/format.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { response, withInTokens } from '../handCache.ts';

export function tinyRecords(questions = 24): CacheLine[] {
  const records: CacheLine[] = [
    { type: 'cache', format: 'cpp-debate-cache', version: 1, name: 'tiny', source: 'recorded' },
    { type: 'agent', id: 'a1', model: 'm1', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'a2', model: 'm2', priceIn: 1, priceOut: 1 },
    { type: 'agent', id: 'a3', model: 'm3', priceIn: 1, priceOut: 1 },
  ];
  const first: Record<string, string> = { a1: 'A', a2: 'B', a3: 'C' };
  for (let n = 0; n < questions; n++) {
    const q = `q${n}`;
    records.push({ type: 'question', id: q, text: `Tiny question ${n} about tiny things?`, gold: 'B', benchmark: 'tiny', answerType: 'mcq', split: n % 4 === 3 ? 'validation' : 'train', promptTokens: 10 });
    for (const a of ['a1', 'a2', 'a3']) records.push({ ...response(`${q}.${a}.1`, q, a, 1, first[a], 10), text: `agent ${a} reasons in its own ${a} style and says ${first[a]}. The answer is ${first[a]}.` });
    for (const r of ['a1', 'a2', 'a3'])
      for (let mask = 0; mask < 8; mask++) {
        const kept = ['a1', 'a2', 'a3'].filter((_, k) => mask & (1 << k));
        const other = r === 'a1' ? 'a3' : 'a1';
        const fixed = kept.includes('a2') && !kept.includes(other);
        const answer = r === 'a2' || fixed ? 'B' : first[r];
        records.push({ ...response(`${q}.${r}.2.${mask}`, q, r, 2, answer, 10, kept.map((a) => `${q}.${a}.1`), `${q}.${r}.1`), text: `agent ${r} revises and says ${answer}. The answer is ${answer}.` });
      }
  }
  return withInTokens(records);
}

export function writeTinyCache(dir: string): void {
  writeCacheRecords(dir, tinyRecords());
}
