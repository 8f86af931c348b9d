// `debate` end to end, as a user runs it: the CLI in a child process, an exported policy, a team
// file pointing at `serve` (started here, on 127.0.0.1, with faults), the transcript in a cache.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../../src/cache/types.ts';
import { cacheFilePath, loadCache } from '../../src/cache/load.ts';
import { writeCacheRecords } from '../../src/cache/write.ts';
import { liveDebate } from '../../src/endpoints/liveDebate.ts';
import { round1Messages } from '../../src/endpoints/prompt.ts';
import { NO_FAULTS, serveSimulator, type Faults } from '../../src/endpoints/simServer.ts';
import { DU_PROMPTS } from '../../src/endpoints/team.ts';
import { tokenCounter } from '../../src/cache/tokens.ts';
import { exportPolicy } from '../../src/policy/export.ts';
import { essence, inProcess, KEY, KEY_ENV, requestOf, worldRecords, writeTeam } from '../fixtures/endpoints.ts';
import { untrainedCheckpoint } from '../fixtures/untrainedPolicy.ts';
import { BUILT_CLI } from '../fixtures/cli.ts';

const root = resolve(import.meta.dirname, '../..');
let dir: string;
let simDir: string;
let sim: Cache;
let policy: string;

function start(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(process.execPath, [...BUILT_CLI, ...args], { cwd: root, env: { ...process.env, [KEY_ENV]: KEY } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err }))) };
}
const cli = (args: string[]) => start(args).done;

const filesUnder = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? filesUnder(join(d, f)) : [join(d, f)]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cpp-debate-'));
  simDir = join(dir, 'sim');
  writeCacheRecords(simDir, worldRecords(24));
  sim = loadCache(simDir);
  const checkpoint = untrainedCheckpoint(
    sim.agents.map((a) => a.id),
    'live-debate',
    { cache: simDir, seed: 0 },
  );
  policy = (await exportPolicy(checkpoint, join(dir, 'export'))).policy;
}, 300_000);

async function withServer<T>(faults: Partial<Faults>, run: (url: string, stats: () => { paid: number; replayed: number }) => Promise<T>): Promise<T> {
  const server = await serveSimulator(sim, { ...NO_FAULTS, port: 0, key: KEY, ...faults });
  try {
    return await run(server.url, () => server.stats);
  } finally {
    await server.close();
  }
}

/** Every response of `out` equals the in-process simulator's reply to the request it records. */
async function expectSimulatorReplies(out: Cache) {
  const simulator = inProcess(sim);
  for (const r of out.responses) {
    const request = requestOf(out, r);
    expect(essence(r), r.id).toEqual(essence(await simulator(request)));
  }
}

describe('debate', () => {
  it('debates through serve with faults, writes a valid cache of the simulator’s replies, keeps the key out, and pays nothing twice on a rerun', async () => {
    const out = join(dir, 'live');
    await withServer({ rate429: 0.2, retryAfterS: 0.05, rate500: 0.05, rateDrop: 0.05, seed: 5 }, async (url, stats) => {
      const team = writeTeam(dir, sim, url, { concurrency: 4, retry: { maxRetries: 12, baseDelayMs: 5 } });
      const args = ['debate', '--team', team, '--policy', policy, '--cache', simDir, '--split', 'test', '--questions', '4', '--out', out];
      const first = await cli(args);
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      expect(first.out.match(/final [A-D]: (correct|wrong)/g)).toHaveLength(4);
      expect(first.out).toContain('debated 4 of 4 questions');
      const paid = stats().paid;
      expect(first.out).toMatch(new RegExp(`calls: ${paid} paid, \\d+ responses reused`));
      expect(first.out).toMatch(/retries: .*rate-limit \d+/);
      for (const text of [first.out, first.err, ...filesUnder(out).map((f) => readFileSync(f, 'utf8'))]) expect(text).not.toContain(KEY);

      const validate = await cli(['cache', 'validate', out]);
      expect(validate.code).toBe(0);
      expect(validate.out).toContain('valid (4 questions, 3 agents, 36 responses)');
      const cache = loadCache(out);
      expect(cache.responses.filter((r) => r.id.startsWith('rec/'))).toHaveLength(paid);
      expect(paid).toBeGreaterThan(0);
      await expectSimulatorReplies(cache);
      // The policy pruned some edges and kept others.
      const shown = cache.responses.filter((r) => r.round > 1).map((r) => r.context.length);
      expect(Math.min(...shown)).toBeLessThan(3);
      expect(Math.max(...shown)).toBeGreaterThan(0);

      const before = readFileSync(cacheFilePath(out), 'utf8');
      const again = await cli(args);
      expect(again.code).toBe(0);
      expect(again.out).toContain('calls: 0 paid, 36 responses reused');
      expect(stats().paid).toBe(paid);
      expect(readFileSync(cacheFilePath(out), 'utf8')).toBe(before);
    });
  }, 180_000);

  it('killed with SIGKILL mid-debate, loses nothing it paid for: the rerun finishes and no call is paid twice', async () => {
    const out = join(dir, 'killed');
    await withServer({ latencyMs: 150 }, async (url, stats) => {
      const team = writeTeam(dir, sim, url, { concurrency: 2 });
      const args = ['debate', '--team', team, '--policy', policy, '--cache', simDir, '--split', 'train', '--questions', '5', '--out', out];
      const run = start(args);
      const lines = () =>
        existsSync(cacheFilePath(out))
          ? readFileSync(cacheFilePath(out), 'utf8')
              .split('\n')
              .filter((l) => l.includes('"id":"rec/')).length
          : 0;
      while (lines() < 4) {
        if (run.child.exitCode !== null) throw new Error(`debate ended before it could be killed:\n${(await run.done).out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      run.child.kill('SIGKILL');
      expect((await run.done).code).toBe(null);
      // A write cut short (a crash of the machine, not of the process) leaves half a line: the rerun removes it and says so.
      appendFileSync(cacheFilePath(out), '{"type":"response","id":"rec/cut');
      const rerun = await cli(args);
      expect(rerun.code).toBe(0);
      expect(rerun.out).toMatch(/removed an unfinished last line \(\d+ bytes\)/);
      expect(rerun.out).toContain('debated 5 of 5 questions');
      const cache = loadCache(out);
      const live = cache.responses.filter((r) => r.id.startsWith('rec/')).length;
      // Calls in flight at the kill were paid but never written; the rerun asked again with the same Idempotency-Key and got them replayed.
      expect(stats().paid).toBe(live);
      await expectSimulatorReplies(cache);
    });
  }, 180_000);

  it('debates the questions of a JSONL file into a new cache, stops cleanly at a ' +
    'call cap and goes on when rerun, and names the line and field of a bad file', async () => {
    const file = join(dir, 'questions.jsonl');
    const picked = sim.questions.filter((q) => q.split === 'validation').slice(0, 2);
    writeFileSync(file, picked.map((q) => JSON.stringify({ id: `new-${q.id}`, text: q.text, gold: q.gold, answerType: 'mcq' })).join('\n') + '\n');
    const out = join(dir, 'from-file');
    const printed: string[] = [];
    await withServer({}, async (url, stats) => {
      const summary = await liveDebate({
        team: writeTeam(dir, sim, url),
        policy,
        out,
        questions: { file },
        rounds: 2,
        sample: 0,
        caps: {},
        print: (l) => printed.push(l),
        env: { [KEY_ENV]: KEY },
      });
      expect(summary.results.map((r) => r.question.id)).toEqual(picked.map((q) => `new-${q.id}`));
      expect(stats().paid).toBe(2 * 3 * 2); // nothing to reuse: every response of 2 rounds is paid
      const cache = loadCache(out);
      expect(cache.header.source).toBe('recorded');
      expect(cache.questions.map((q) => q.promptTokens)).toEqual(picked.map((q) => tokenCounter('o200k_base')(round1Messages(DU_PROMPTS.mcq, q.text))));
      expect(cache.responses).toHaveLength(12);
      expect(printed.at(-1)).toContain(`transcript in ${cacheFilePath(out)}`);

      // At a call cap the run stops cleanly, keeps what it paid for, and a rerun pays only for the rest.
      // (Round-1 sample 1: new requests, which serve has not answered under their Idempotency-Keys yet.)
      const capped = join(dir, 'capped');
      const run = (caps: { maxCalls?: number }) =>
        liveDebate({
          team: writeTeam(dir, sim, url),
          policy,
          out: capped,
          questions: { file },
          rounds: 2,
          sample: 1,
          caps,
          print: (l) => printed.push(l),
          env: { [KEY_ENV]: KEY },
        });
      const paidBefore = stats().paid;
      const stopped = await run({ maxCalls: 4 });
      expect(stopped.stopped).toMatch(/call cap reached: .* 4 of at most 4 calls made/);
      expect(printed.at(-1)).toContain('stopped at the cap: call cap reached');
      expect(stats().paid - paidBefore).toBe(4);
      expect(loadCache(capped).responses).toHaveLength(4);
      const finished = await run({});
      expect(finished.stopped).toBe(null);
      expect(finished.results).toHaveLength(2);
      expect(stats().paid - paidBefore).toBe(12);
    });
    writeFileSync(file, '{"id":"a","text":"t","gold":"B","answerType":"mcq"}\n{"id":"b","text":"t","answerType":"essay"}\n');
    await expect(
      liveDebate({
        team: join(dir, 'team.json'),
        policy,
        out,
        questions: { file },
        rounds: 2,
        sample: 0,
        caps: {},
        print: () => undefined,
        env: { [KEY_ENV]: KEY },
      }),
    ).rejects.toThrow(new RegExp(`${file}:2: gold: gold answer missing[^]*${file}:2: answerType: `));
  }, 120_000);
});
