import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearFault, fault } from '../fixtures/fsFaults.ts';

// A full disk, injected where a test sets `fault` (node:fs is otherwise itself).
vi.mock('node:fs', async (original) => (await import('../fixtures/fsFaults.ts')).faultyFs(await original()));
import { appendJournal, journalPath, openJournal, closeJournal } from '../../src/cache/journal.ts';
import { CacheError } from '../../src/cache/types.ts';
import { applyJournal, cacheFilePath, loadCache, parseCache } from '../../src/cache/load.ts';
import { fileLines } from '../../src/io/textFile.ts';
import { compactCache, writeCacheRecords } from '../../src/cache/write.ts';
import { edgesOnly, playDebates } from '../../src/env/debate.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { newRecording, recordRequestIds } from '../../src/env/record.ts';
import { requestKey } from '../../src/env/requestKey.ts';
import { openRecording } from '../../src/recording.ts';
import { handRecords, response } from '../fixtures/handCache.ts';
import { countingSimulator, sparseWorld } from '../fixtures/sparseWorld.ts';

const handDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cpp-journal-'));
  writeCacheRecords(dir, handRecords());
  return dir;
};
const line = (x: object) => JSON.stringify(x) + '\n';
const quiet = () => {};

// Every recipient keeps its own response and, seeded per question and round, each peer half the time.
const someEdges = edgesOnly((d, n) =>
  Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j === 0 || (d.q * 7 + d.round * 3 + i * 5 + j) % 4 < 2)),
);

afterEach(clearFault);

describe('the record journal', () => {
  it('a torn last line is dropped with a warning and cut off by the next writer; a line missing only its newline is kept', () => {
    const dir = handDir();
    const file = journalPath(dir);
    const kept = response('q1x', 'q1', 'a1', 2, 'B', 4, ['q1a2'], 'q1a1');
    writeFileSync(file, line(kept) + '{"type":"response","id":"q1y","quest');
    const warnings: string[] = [];
    const cache = loadCache(dir, (w) => warnings.push(w));
    expect(cache.responseIndex.has('q1x')).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/journal\.jsonl:2: dropped a torn last line/)]);
    const j = openJournal(dir, 0, (w) => warnings.push(w));
    appendJournal(j, response('q1z', 'q1', 'a3', 2, 'A', 2, ['q1a1'], 'q1a3'));
    closeJournal(j);
    expect(warnings[1]).toMatch(/cut off a torn last line/);
    expect(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual(['q1x', 'q1z']);
    // Complete JSON without its newline: kept, and the writer adds the newline before appending.
    writeFileSync(file, line(kept).trimEnd());
    const j2 = openJournal(dir, 0, quiet);
    appendJournal(j2, response('q1z', 'q1', 'a3', 2, 'A', 2, ['q1a1'], 'q1a3'));
    closeJournal(j2);
    expect(loadCache(dir, quiet).responses.length).toBe(handRecords().filter((r) => r.type === 'response').length + 2);
  });

  it('a reply that a full disk cuts short is cut off again: the journal ends with its last whole line, the error names it; the next append goes in', () => {
    const dir = handDir();
    const j = openJournal(dir, 0, quiet);
    const first = response('q1x', 'q1', 'a1', 2, 'B', 4, ['q1a2'], 'q1a1');
    appendJournal(j, first);
    closeJournal(j);
    Object.assign(fault, { path: /journal\.jsonl$/, code: 'ENOSPC', room: 20 });
    const full = openJournal(dir, 0, quiet); // opened on a disk with 20 bytes left
    const second = response('q1y', 'q1', 'a1', 2, 'C', 4, ['q1a3'], 'q1a1');
    expect(() => appendJournal(full, second)).toThrow(`${journalPath(dir)}: not written: no space left on device (ENOSPC); it ends with its last whole line`);
    expect(readFileSync(journalPath(dir), 'utf8')).toBe(line(first));
    clearFault();
    appendJournal(full, second);
    closeJournal(full);
    expect(readFileSync(journalPath(dir), 'utf8')).toBe(line(first) + line(second));
    expect(loadCache(dir, quiet).responseIndex.has('q1y')).toBe(true);
  });

  it('a broken line inside the journal is an error naming file, line and field; validate sees it', () => {
    const dir = handDir();
    writeFileSync(
      journalPath(dir),
      line(response('q1x', 'q1', 'a1', 2, 'B', 4, ['q1a2'], 'q1a1')) + '{oops\n' + line({ ...response('q1w', 'q1', 'a1', 2, 'B', 4, ['q1zz'], 'q1a1') }),
    );
    expect(() => loadCache(dir, quiet)).toThrow(CacheError);
    const { cache } = parseCache(fileLines(cacheFilePath(dir)), cacheFilePath(dir));
    const { problems } = applyJournal(cache!, dir);
    expect(problems.map((p) => `${p.line}|${p.field}|${p.message}`)).toEqual([
      expect.stringMatching(/^2\|\|invalid JSON/),
      expect.stringMatching(/^3\|\|context\.0: unknown response, external or summary id 'q1zz'/),
    ]);
  });

  it('a rerun pays for nothing recorded; an intent without its reply is asked again with the same idempotency key and counted', async () => {
    const dir = sparseWorld(12);
    const first = countingSimulator(dir);
    const cache = loadCache(dir, quiet);
    const rec = openRecording(dir, cache, { concurrency: 3 }, first);
    const env = makeEnvironment(cache, { miss: 'record' }, rec);
    const qs = cache.questions.map((q) => q.index);
    const results = await playDebates(env, qs, someEdges);
    expect(first.calls.length).toBeGreaterThan(20);
    expect(new Set(first.calls).size).toBe(first.calls.length); // each context asked once
    expect(rec.recorded.length).toBe(first.calls.length);
    closeJournal(rec.journal!);

    // Rerun in a fresh "process": the journal is loaded with the cache, nothing is asked, same debates.
    const again = countingSimulator(dir);
    const reloaded = loadCache(dir, quiet);
    const rec2 = openRecording(dir, reloaded, {}, again);
    const results2 = await playDebates(makeEnvironment(reloaded, { miss: 'record' }, rec2), qs, someEdges);
    closeJournal(rec2.journal!);
    expect(again.calls).toEqual([]);
    expect(results2.map((r) => r.answers)).toEqual(results.map((r) => r.answers));
    expect(results2.reduce((s, r) => s + r.tiers.exact, 0)).toBe(results.reduce((s, r) => s + r.tiers.exact + r.tiers.record, 0));

    // Lose the last reply after its intent (a kill between "paid" and "journaled").
    const lines = readFileSync(journalPath(dir), 'utf8').split('\n').filter(Boolean);
    const last = JSON.parse(lines.at(-1)!);
    writeFileSync(journalPath(dir), lines.slice(0, -1).join('\n') + '\n');
    const third = countingSimulator(dir);
    const cache3 = loadCache(dir, quiet);
    expect([...cache3.journal!.unanswered.keys()]).toEqual([last.id]);
    const rec3 = openRecording(dir, cache3, {}, third);
    await playDebates(makeEnvironment(cache3, { miss: 'record' }, rec3), qs, someEdges);
    closeJournal(rec3.journal!);
    expect(third.calls).toEqual([cache3.journal!.unanswered.get(last.id)]); // the same idempotency key
    expect(rec3.reasked).toBe(1);
    expect(loadCache(dir, quiet).journal!.unanswered.size).toBe(0);
  }, 300_000);

  it('compaction folds the journal into cache.jsonl atomically; a crash before the journal is cleared loses and duplicates nothing', async () => {
    const dir = sparseWorld(6);
    const cache = loadCache(dir, quiet);
    const rec = openRecording(dir, cache, {}, countingSimulator(dir));
    await playDebates(
      makeEnvironment(cache, { miss: 'record' }, rec),
      cache.questions.map((q) => q.index),
      someEdges,
    );
    closeJournal(rec.journal!);
    appendFileSync(journalPath(dir), line({ type: 'intent', id: 'rec/lost', key: 'k-lost' })); // an unanswered intent
    const before = loadCache(dir, quiet);
    const saved = join(dir, 'journal.copy');
    copyFileSync(journalPath(dir), saved);
    expect(await compactCache(dir)).toEqual({ responses: rec.recorded.length, unanswered: 1, journalKept: false });
    expect(readFileSync(journalPath(dir), 'utf8')).toBe(line({ type: 'intent', id: 'rec/lost', key: 'k-lost' }));
    const after = loadCache(dir, quiet);
    expect(after.responses.map((r) => r.id)).toEqual(before.responses.map((r) => r.id));
    expect(after.journal!.responses).toBe(0);
    // The crash: cache.jsonl rewritten, the old journal still there.
    copyFileSync(saved, journalPath(dir));
    const warnings: string[] = [];
    expect(loadCache(dir, (w) => warnings.push(w)).responses.length).toBe(before.responses.length);
    expect(warnings).toEqual([]);
    // Without unanswered intents, compaction removes the journal.
    writeFileSync(journalPath(dir), '');
    await compactCache(dir);
    expect(existsSync(journalPath(dir))).toBe(false);
  }, 300_000);

  it('a response recorded twice with different replies keeps the first, with a warning', () => {
    const dir = handDir();
    const r = response('q1x', 'q1', 'a1', 2, 'B', 4, ['q1a2'], 'q1a1');
    writeFileSync(journalPath(dir), line(r) + line({ ...r, text: 'other words. The answer is C.', answer: 'C' }));
    const warnings: string[] = [];
    const cache = loadCache(dir, (w) => warnings.push(w));
    expect(cache.responses[cache.responseIndex.get('q1x')!].answer).toBe('B');
    expect(warnings).toEqual([expect.stringMatching(/journal\.jsonl:2: response 'q1x' was recorded twice with different replies/)]);
  });

  it("two recorders of one cache see each other's replies before asking", async () => {
    const dir = sparseWorld(4);
    const endpoint = countingSimulator(dir);
    const [a, b] = [loadCache(dir, quiet), loadCache(dir, quiet)];
    const recA = openRecording(dir, a, {}, endpoint);
    const recB = openRecording(dir, b, {}, endpoint);
    const qs = a.questions.map((q) => q.index);
    await playDebates(makeEnvironment(a, { miss: 'record' }, recA), qs, someEdges);
    const calls = endpoint.calls.length;
    await playDebates(makeEnvironment(b, { miss: 'record' }, recB), qs, someEdges);
    expect(endpoint.calls.length).toBe(calls);
    closeJournal(recA.journal!);
    closeJournal(recB.journal!);
  }, 300_000);

  it('a request key covers everything asked', () => {
    const cache = loadCache(handDir(), quiet);
    const r = (over: object) =>
      requestKey(recordRequestIds(cache, { q: 0, agent: 0, round: 2, context: [cache.responses[0]], prev: cache.responses[0], sample: 0, ...over }));
    const keys = [r({}), r({ agent: 1 }), r({ round: 3 }), r({ context: [] }), r({ prev: null }), r({ sample: 1 }), r({ q: 1 })];
    expect(new Set(keys).size).toBe(keys.length);
    expect(r({})).toBe(r({}));
    expect(newRecording(countingSimulator(sparseWorld(2))).concurrency).toBe(8);
  });
});
