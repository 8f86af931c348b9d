// The record tier under the recorded protocol (docs/replay.md, Protocols): on the DyLAN MATH
// fixtures, a revision no recorded response answers is asked of the endpoint with the context the
// log's protocol gives its recipient (its kept answers: the previous round's, earlier speakers' of
// this round as this replay produced them, and the external texts, in the log's order); the reply
// is journaled, and a rerun reads it back from the exact tier.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomPruning } from '../../eval/baselines.ts';
import { importDu } from '../../src/cache/importDu.ts';
import { cacheFilePath, loadCache } from '../../src/cache/load.ts';
import type { Cache } from '../../src/cache/types.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import type { ChatMessage } from '../../src/endpoints/prompt.ts';
import { loadTeamEndpoints } from '../../src/endpoints/teamEndpoints.ts';
import { playDebates, type DebateResult, type DecisionRule } from '../../src/env/debate.ts';
import { isResponse, shownEntryTokens, type Endpoint } from '../../src/env/endpoint.ts';
import { splitQuestions } from '../../src/env/environment.ts';
import { recordedByReplay } from '../../src/env/requestKey.ts';
import type { DebateSettings } from '../../src/env/settings.ts';
import { closeRecording, openEnvironment } from '../../src/recording.ts';
import { fittedEndpoint } from '../../src/sim/fittedEndpoint.ts';
import { fitSimulator } from '../../src/sim/fitted.ts';
import { dylanMathFiles } from '../fixtures/dylanMath.ts';
import { mathImport } from '../fixtures/duLayout.ts';
import { KEY, KEY_ENV, writeTeam } from '../fixtures/endpoints.ts';

const quiet = () => {};
const settings: Partial<DebateSettings> = { agents: ['a1', 'a2', 'a3'], rounds: 2, protocol: 'recorded', miss: 'record' };
/** An endpoint that must not be asked: a rerun reads what the first run recorded. */
const never: Endpoint = {
  name: 'an endpoint a rerun must not ask',
  respond: async (r) => {
    throw new Error(`asked for agent '${r.agent.id}' on question '${r.question.id}' at round ${r.round}`);
  },
};

let imported: string | undefined;
/** A fresh cache folder holding the dylan-math import (imported once, then copied). */
function importedCache(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'cpp-recorded-protocol-')), 'cache');
  if (!imported) {
    writeCacheRecords(dir, importDu(dylanMathFiles(), mathImport).records);
    imported = cacheFilePath(dir);
  } else {
    mkdirSync(dir);
    copyFileSync(imported, cacheFilePath(dir));
  }
  return dir;
}

/** Replay `qs` (question ids) with `rule` on the cache in `dir`, `endpoint` answering what it lacks, journaled in `dir`. */
async function replayRecorded(
  dir: string,
  endpoint: Endpoint,
  qs: number[],
  rule: DecisionRule,
): Promise<{ cache: Cache; results: DebateResult[]; tiers: object }> {
  const cache = loadCache(dir, quiet);
  const env = openEnvironment(cache, settings, { endpoint });
  try {
    const results = await playDebates(env, qs, rule);
    return { cache, results, tiers: env.tiers };
  } finally {
    closeRecording(env.recording!);
  }
}

describe('the record tier under the recorded protocol, through a team file (an OpenAI-compatible server on 127.0.0.1)', () => {
  const prompts: { model: string; messages: ChatMessage[] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { model, messages } = JSON.parse(body);
      prompts.push({ model, messages });
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = `Reply ${prompts.length} of ${model}: so the answer is $\\boxed{${prompts.length + 100}}$.`;
      res.end(
        JSON.stringify({
          id: `r${prompts.length}`,
          object: 'chat.completion',
          created: 0,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("asks a revision with the recorded protocol's context in the log's order (an earlier speaker's reply as replayed, the external text), journals it, and a rerun reads it exactly", async () => {
    const dir = importedCache();
    const cache = loadCache(dir, quiet);
    const id = (a: string) => cache.agentIndex.get(a)!;
    const round2 = (q: number, a: string) => cache.responses.find((r) => r.q === q && r.a === id(a) && r.round === 2)!;
    // A debate where a2 spoke after a1, and a3 last, reading a1's and a2's round-2 answers and an external text.
    const q = cache.questions.find((x) => {
      const [a1, a2, a3] = ['a1', 'a2', 'a3'].map((a) => round2(x.index, a));
      return a1 && a2 && a3 && a2.ctx.includes(a1.index) && a3.ctx.includes(a2.index) && a3.ext.length > 0 && a3.turn! > a2.turn!;
    })!.index;
    const log3 = round2(q, 'a3');
    expect(log3.context.map((c) => (cache.externalIndex.has(c) ? 'external' : cache.agents[cache.responses[cache.responseIndex.get(c)!].a].id))).toEqual([
      'a3',
      'a1',
      'a2',
      'external',
    ]);
    // a2 (candidates: own, a1, a3) prunes a1's answer: its revision is no recorded one, and a3, keeping everything, reads that new reply.
    const rule: DecisionRule = (_d, n) => ({ keep: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => !(i === 1 && j === 1))) });
    const team = loadTeamEndpoints(writeTeam(join(dir, '..'), cache, url), cache, {}, { [KEY_ENV]: KEY });
    const first = await replayRecorded(dir, team, [q], rule);
    expect(first.tiers).toEqual({ exact: 1, signature: 0, model: 0, record: 2, skipped: 0 });
    expect(prompts.map((p) => p.model)).toEqual(['a2', 'a3']);
    const text = (c: string) =>
      cache.responseIndex.has(c) ? cache.responses[cache.responseIndex.get(c)!].text : cache.externals[cache.externalIndex.get(c)!].text;
    const solutions = (p: { messages: ChatMessage[] }) => p.messages[p.messages.length - 1].content;
    // a2's prompt: its own round-1 answer, a3's, the external text: a1's round-2 answer pruned.
    const log2 = round2(q, 'a2');
    const a2Shown = solutions(prompts[0]);
    const a1Answer = cache.responses[log2.ctx.find((c) => cache.responses[c].a === id('a1'))!].text;
    expect(a2Shown).not.toContain(a1Answer);
    const positions = (shown: string, texts: string[]) => texts.map((t) => shown.indexOf(t));
    expect(positions(a2Shown, log2.context.filter((c) => text(c) !== a1Answer).map(text)).every((p, k, all) => p >= 0 && (k === 0 || p > all[k - 1]))).toBe(
      true,
    );
    // a3's prompt: in the log's order its own round-1 answer, a1's round-2 answer, a2's reply of this replay (the server's first), the external text.
    const a3Shown = solutions(prompts[1]);
    const expected = [text(log3.context[0]), text(log3.context[1]), 'Reply 1 of a2: so the answer is $\\boxed{101}$.', text(log3.context[3])];
    const at = positions(a3Shown, expected);
    expect(at.every((p) => p >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(a3Shown).not.toContain(text(log3.context[2])); // the log's a2 answer is not what this replay's a2 said
    // The chat's history: the question, then a3's own round-1 answer.
    expect(prompts[1].messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([text(log3.prev!)]);
    const answers = first.results[0].answers[1].map((k) => first.cache.answerKeys[k]);
    expect(answers).toEqual([cache.answerKeys[round2(q, 'a1').ans], '101', '102']);

    // Journaled: the two replies, with what they were shown and after which previous response.
    const journal = readFileSync(join(dir, 'journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.type === 'response');
    expect(journal.map((r) => [r.agent, r.round, r.prev, r.text])).toEqual([
      ['a2', 2, log2.prev, 'Reply 1 of a2: so the answer is $\\boxed{101}$.'],
      ['a3', 2, log3.prev, 'Reply 2 of a3: so the answer is $\\boxed{102}$.'],
    ]);
    expect(journal[1].context.slice(0, 2)).toEqual(log3.context.slice(0, 2));
    expect(journal[1].context[2]).toBe(journal[0].id);
    expect(journal[1].context[3]).toBe(log3.context[3]);
    expect(journal.every((r) => r.turn === undefined && recordedByReplay(r))).toBe(true);

    // A rerun on the cache as loaded from disk (with its journal) asks nothing: the exact tier answers every revision.
    const again = await replayRecorded(dir, never, [q], rule);
    expect(again.tiers).toEqual({ exact: 3, signature: 0, model: 0, record: 0, skipped: 0 });
    expect(again.results[0].answers).toEqual(first.results[0].answers);
    expect(prompts).toHaveLength(2);
  }, 300_000);
});

describe('the record tier under the recorded protocol, the simulator fitted to the records answering', () => {
  it('records every revision a pruning rule leads to, each with its recorded-protocol context (earlier speakers, external texts), and a rerun reads them all exactly', async () => {
    const dir = importedCache();
    const cache = loadCache(dir, quiet);
    const { fit } = fitSimulator(cache, { seed: 0, sweeps: 1 });
    const env = openEnvironment(cache, settings, { endpoint: fittedEndpoint(cache, fit) });
    const questions = splitQuestions(openEnvironment(cache, { ...settings, miss: 'model' }), 'test').questions;
    let first: Awaited<ReturnType<typeof randomPruning>>;
    try {
      first = await randomPruning(env, questions, 0.5, 0);
    } finally {
      closeRecording(env.recording!);
    }
    expect(first.tiers.record).toBeGreaterThan(100);
    expect(first.tiers.model + first.tiers.signature).toBe(0);
    const recorded = cache.responses.filter((r) => r.id.startsWith('rec/'));
    expect(recorded).toHaveLength(first.tiers.record);
    // Under synchronous rounds a revision reads round-1 answers only; here earlier speakers' round-2 answers and external texts too.
    expect(recorded.filter((r) => r.ctx.some((c) => cache.responses[c].round === 2)).length).toBeGreaterThan(20);
    expect(recorded.filter((r) => r.ctx.some((c) => cache.responses[c].id.startsWith('rec/'))).length).toBeGreaterThan(10);
    expect(recorded.filter((r) => r.ext.length > 0).length).toBeGreaterThan(20);
    // The fitted simulator prices a call by what it was shown, external texts included.
    for (const r of recorded) {
      const shown = r.context.map((c) =>
        cache.responseIndex.has(c) ? cache.responses[cache.responseIndex.get(c)!] : cache.externals[cache.externalIndex.get(c)!],
      );
      expect(r.inTokens, r.id).toBe(cache.questions[r.q].promptTokens + shown.reduce((s, e) => s + shownEntryTokens(e), 0));
      expect(shown.filter((e) => !isResponse(e)).length).toBe(r.ext.length);
    }

    const reloaded = loadCache(dir, quiet);
    const rerun = openEnvironment(reloaded, settings, { endpoint: never });
    try {
      const again = await randomPruning(rerun, questions, 0.5, 0);
      expect(again.tiers).toEqual({ exact: first.tiers.exact + first.tiers.record, signature: 0, model: 0, record: 0, skipped: 0 });
      expect(again.correct).toBe(first.correct);
      expect(again.outcomes).toEqual(first.outcomes);
    } finally {
      closeRecording(rerun.recording!);
    }
  }, 180_000);
});
