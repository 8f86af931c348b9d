import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CacheError } from '../../src/cache/types.ts';
import { cacheFilePath, cacheFromRecords, loadCache } from '../../src/cache/load.ts';
import { saveCache, writeCacheRecords } from '../../src/cache/write.ts';
import { handRecords } from '../fixtures/handCache.ts';
import { BUILT_CLI as CLI } from '../fixtures/cli.ts';

function cacheDir(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-cache-'));
  writeFileSync(cacheFilePath(dir), lines.join('\n') + '\n');
  return dir;
}

const goodLines = () => handRecords().map((r) => JSON.stringify(r));

/** Replace line `n` (1-based) of the hand cache. */
function withLine(n: number, edit: (rec: Record<string, unknown>) => Record<string, unknown> | string): string[] {
  const lines = goodLines();
  const edited = edit(JSON.parse(lines[n - 1]));
  lines[n - 1] = typeof edited === 'string' ? edited : JSON.stringify(edited);
  return lines;
}

function problemsOf(lines: string[]): { messages: string[]; dir: string; before: string } {
  const dir = cacheDir(lines);
  const before = readFileSync(cacheFilePath(dir), 'utf8');
  try {
    loadCache(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(CacheError);
    return { messages: (e as CacheError).problems.map((p) => `${p.line}|${p.field}|${p.message}`), dir, before };
  }
  throw new Error('expected the cache to be rejected');
}

describe('loading a valid cache', () => {
  it('round-trips through save and load', () => {
    const cache = cacheFromRecords(handRecords());
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cache-'));
    saveCache(dir, cache);
    const again = loadCache(dir);
    expect(readFileSync(cacheFilePath(dir), 'utf8').trim().split('\n')).toEqual(goodLines());
    expect(again.responses.map((r) => [r.id, r.ctx, r.prevIndex, r.correct])).toEqual(cache.responses.map((r) => [r.id, r.ctx, r.prevIndex, r.correct]));
  });

  it('accepts records in any order', () => {
    const lines = goodLines();
    const reordered = [lines[0], ...lines.slice(1).reverse()];
    const cache = loadCache(cacheDir(reordered));
    expect(cache.responses.length).toBe(16);
    expect(cache.responses.find((r) => r.id === 'q1f1')!.ctx.length).toBe(3);
  });
});

describe('each kind of bad cache gets its error, naming file, line and field, and stays untouched', () => {
  const cases: [string, string[], RegExp][] = [
    ['bad JSON', withLine(7, () => '{"type":"response", "id": '), /^7\|\|invalid JSON/],
    ['missing field', withLine(7, (r) => ({ ...r, outTokens: undefined })), /^7\|outTokens\|/],
    ['mistyped field', withLine(7, (r) => ({ ...r, round: 'two' })), /^7\|round\|.*number/],
    ['unknown record type', withLine(7, (r) => ({ ...r, type: 'answer' })), /^7\|type\|/],
    ['unknown field', withLine(7, (r) => ({ ...r, colour: 'red' })), /^7\|colour\|unknown field/],
    ['unknown agent', withLine(7, (r) => ({ ...r, agent: 'a9' })), /^7\|agent\|unknown agent 'a9'/],
    ['unknown question', withLine(7, (r) => ({ ...r, question: 'q9' })), /^7\|question\|unknown question 'q9'/],
    [
      'context id that does not exist',
      withLine(11, (r) => ({ ...r, context: ['q1a1', 'nope'] })),
      /^11\|context\.1\|unknown response, external or summary id 'nope'/,
    ],
    [
      'context from the wrong round',
      withLine(11, (r) => ({ ...r, context: ['q1o1'] })),
      /^11\|context\.0\|response 'q1o1' is from round 2: a context holds responses of earlier rounds, or another agent's round-2 response/,
    ],
    ['duplicate id', withLine(8, (r) => ({ ...r, id: 'q1a1' })), /^8\|id\|duplicate response id 'q1a1' \(first on line 7\)/],
    ['gold answer missing', withLine(5, (r) => ({ ...r, gold: undefined })), /^5\|gold\|gold answer missing/],
    ['gold answer empty', withLine(5, (r) => ({ ...r, gold: '' })), /^5\|gold\|gold answer missing/],
    ['gold answer unreadable', withLine(5, (r) => ({ ...r, gold: 'none of these' })), /^5\|gold\|.*cannot be read as a mcq answer/],
    ['no header', goodLines().slice(1), /^0\|type\|no cache header/],
  ];
  for (const [name, lines, expected] of cases)
    it(name, () => {
      const { messages, dir, before } = problemsOf(lines);
      expect(
        messages.some((m) => expected.test(m)),
        messages.join('\n'),
      ).toBe(true);
      expect(readFileSync(cacheFilePath(dir), 'utf8')).toBe(before);
    });

  it('reports every problem, not just the first', () => {
    const lines = goodLines();
    lines[9] = '{oops'; // line 10, a sample nothing refers to
    lines[10] = JSON.stringify({ ...JSON.parse(lines[10]), agent: 'ghost' }); // line 11
    const { messages } = problemsOf(lines);
    expect(messages.length).toBe(2);
  });

  it('a missing file is named', () => {
    expect(() => loadCache('/nonexistent/cache')).toThrow(/\/nonexistent\/cache\/cache\.jsonl: file not found/);
  });

  it('the validate command prints file:line: field: problem and exits 1; exits 0 on a valid cache', () => {
    const bad = cacheDir(withLine(7, (r) => ({ ...r, agent: 'a9' })));
    const run = (dir: string) => {
      try {
        return { code: 0, out: execFileSync(process.execPath, [...CLI, 'cache', 'validate', dir], { encoding: 'utf8' }) };
      } catch (e) {
        const err = e as { status: number; stdout: string };
        return { code: err.status, out: err.stdout };
      }
    };
    const r = run(bad);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${cacheFilePath(bad)}:7: agent: unknown agent 'a9'`);
    const good = mkdtempSync(join(tmpdir(), 'cpp-cache-'));
    writeCacheRecords(good, handRecords());
    expect(run(good)).toMatchObject({ code: 0 });
  }, 300_000);
});

describe('atomic writes', () => {
  it('a write that fails halfway leaves the previous file in place', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cpp-cache-'));
    writeCacheRecords(dir, handRecords());
    const before = readFileSync(cacheFilePath(dir), 'utf8');
    function* failing() {
      yield handRecords()[0];
      throw new Error('interrupted');
    }
    expect(() => writeCacheRecords(dir, failing())).toThrow('interrupted');
    expect(readFileSync(cacheFilePath(dir), 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['cache.jsonl']); // no temporary file left behind
  });
});

describe('the documented example cache', () => {
  it('cache/example is valid and is the hand-built cache the tests work out by hand', () => {
    expect(readFileSync(cacheFilePath('cache/example'), 'utf8')).toBe(
      handRecords()
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    expect(loadCache('cache/example').responses.length).toBe(16);
  });

  it('external shown solutions: kept, saved, and checked like responses', () => {
    const records = [
      ...handRecords(),
      { type: 'external' as const, id: 'q1ext', question: 'q1', text: 'Someone says B.', answer: 'B', tokens: 4 },
      {
        type: 'response' as const,
        id: 'q1e1',
        question: 'q1',
        agent: 'a1',
        round: 2,
        sample: 0,
        context: ['q1a1', 'q1ext'],
        prev: 'q1a1',
        text: 'B',
        answer: 'B',
        inTokens: 20,
        outTokens: 1,
      },
    ];
    const cache = cacheFromRecords(records);
    const r = cache.responses[cache.responseIndex.get('q1e1')!];
    expect([r.ctx, r.ext, cache.externals[0].ans]).toEqual([[cache.responseIndex.get('q1a1')], [0], cache.answerIndex.get('B')]);
    const dir = mkdtempSync(join(tmpdir(), 'ext-'));
    saveCache(dir, cache);
    expect(loadCache(dir).externals.map((e) => e.id)).toEqual(['q1ext']);
    const elsewhere = records.map((x) => (x.type === 'external' ? { ...x, question: 'q2' } : x));
    expect(() => cacheFromRecords(elsewhere)).toThrow(/context\.1: external 'q1ext' belongs to another question \(q2\)/);
  });
});

describe('a refused line is one problem, not one per record that names it', () => {
  it('a negative price is one problem (was: one more for every response of the agent and every context that names one)', () => {
    expect(problemsOf(withLine(2, (r) => ({ ...r, priceIn: -1 }))).messages).toEqual(['2|priceIn|must be at least 0']);
  });

  it('prices are bounded: a price of 1e308 is refused, so that no cost sums to Infinity or NaN', () => {
    expect(problemsOf(withLine(2, (r) => ({ ...r, priceOut: 1e308 }))).messages).toEqual([
      '2|priceOut|must be at most 1000 per token (prices are per token, not per million)',
    ]);
  });

  it('a question whose gold answer cannot be read is one problem', () => {
    const { messages } = problemsOf(withLine(5, (r) => ({ ...r, gold: 'no letter here' })));
    expect(messages).toEqual([expect.stringMatching(/^5\|gold\|gold answer 'no letter here' cannot be read as a mcq answer/)]);
  });
});
