// The tier-3 stand-in's text source (src/env/standIn.ts): a cached response stating the drawn answer,
// the recipient's own, written after a context like the one asked about.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Cache, Response } from '../../src/cache/types.ts';
import { cacheFromRecords } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { revisionContext, type RevisionContext } from '../../src/env/responseModel.ts';
import { standIn } from '../../src/env/standIn.ts';
import { generateWorld } from '../../src/sim/generate.ts';

const shownSet = (cache: Cache, r: Response) =>
  [...r.ctx.map((i) => `${cache.responses[i].a}:${cache.responses[i].ans}`), ...r.ext.map((e) => `${cache.agents.length}:${cache.externals[e].ans}`)].sort();
const askedSet = (c: RevisionContext) => [...c.peers.map((p) => `${p.agent}:${p.ans}`), ...(c.prevShown ? [`${c.agent}:${c.prev}`] : [])].sort();

describe('tier-3 stand-in text', () => {
  it("comes from the recipient's own response stating the drawn answer, after the same shown answers whenever the cache holds one", () => {
    const cache = cacheFromRecords([...generateWorld({ questions: 40, round1Samples: 2, randomTrajectories: 2 }, 'w')], 'w.jsonl');
    const env = makeEnvironment(cache, { rounds: 3, miss: 'model', seed: 0 });
    const random = seedrandom('stand-ins');
    let asked = 0,
      matched = 0,
      ownAgent = 0;
    for (const r of cache.responses) {
      if (r.round < 2 || r.prevIndex < 0) continue;
      // Ask about the context this revision was recorded after, with one peer pruned where it had one: a context no response may have seen.
      const full = revisionContext(cache, r);
      for (const c of [full, { ...full, peers: full.peers.slice(1) }]) {
        const { ans, source } = standIn(env, r.round, c, random);
        const s = cache.responses[source];
        expect(s.q).toBe(r.q);
        expect(s.ans).toBe(ans);
        const candidates = cache.responses.filter((x) => x.q === r.q && x.ans === ans && x.a === c.agent);
        if (candidates.length) {
          expect(s.a).toBe(c.agent);
          ownAgent++;
          const want = askedSet(c).join();
          if (candidates.some((x) => shownSet(cache, x).join() === want)) {
            expect(shownSet(cache, s).join()).toBe(want);
            matched++;
          }
        }
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(500);
    expect(ownAgent / asked).toBeGreaterThan(0.9);
    expect(matched).toBeGreaterThan(100);
  });
});
