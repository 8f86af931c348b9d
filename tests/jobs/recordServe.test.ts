// Recording through a failing endpoint, as a user runs it: `record` (the CLI, in a child process) through the
// `openai` client of a team file against `serve` (started here, on 127.0.0.1, with 20% 429s, 5%
// 500s and 5% dropped connections), killed with SIGKILL at random points, then run to the end:
// every context recorded once, no call paid twice (serve's Idempotency-Key dedup makes a re-sent
// call free, and counts only the others as paid), no broken line, `cache validate` clean, the key
// in no output and no file. (The README's run does the same on 100 questions.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { journalPath } from '../../src/cache/journal.ts';
import { loadCache } from '../../src/cache/load.ts';
import { NO_FAULTS, serveSimulator } from '../../src/endpoints/simServer.ts';
import { sameRequest } from '../../src/env/requestKey.ts';
import { essence, inProcess, KEY, KEY_ENV, writeTeam } from '../fixtures/endpoints.ts';
import { sparseWorld } from '../fixtures/sparseWorld.ts';
import { BUILT_CLI } from '../fixtures/cli.ts';

const root = resolve(import.meta.dirname, '../..');
const filesUnder = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? filesUnder(join(d, f)) : [join(d, f)]));

function cli(args: string[], started?: (child: ChildProcess) => void): Promise<{ code: number | null; signal: string | null; out: string }> {
  const child = spawn(process.execPath, [...BUILT_CLI, ...args], { cwd: root, env: { ...process.env, [KEY_ENV]: KEY } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  started?.(child);
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, out })));
}

describe('record through serve with faults, killed with SIGKILL and rerun', () => {
  it('records every context once, pays no call twice, leaves no broken line; cache validate is clean; the key is nowhere', async () => {
    const dir = sparseWorld(72); // 36 train questions whose recorded debates are Full-Debate and No-communication only
    const sim = loadCache(dir, () => {});
    // Kill the recording child as serve sends the reply of a paid call, once it has seen `killAt`
    // attempts: that reply is lost, and the rerun must send the call again, with its key.
    let child: ChildProcess | undefined;
    let killAt = Infinity;
    const keysSent = new Set<string | null>();
    const lostAtKill = new Set<string | null>();
    const sentAgain = new Set<string | null>();
    const server = await serveSimulator(sim, {
      ...NO_FAULTS,
      port: 0,
      key: KEY,
      rate429: 0.2,
      retryAfterS: 0.05,
      rate500: 0.05,
      rateDrop: 0.05,
      seed: 12,
      onAttempt: ({ key, outcome }) => {
        keysSent.add(key);
        if (lostAtKill.has(key)) sentAgain.add(key);
        if (outcome === 'paid' && server.stats.attempts >= killAt) {
          child?.kill('SIGKILL');
          killAt = Infinity;
          lostAtKill.add(key);
        }
      },
    });
    try {
      const team = writeTeam(dir, sim, server.url, { concurrency: 4, retry: { maxRetries: 12, baseDelayMs: 5, maxDelayMs: 200 } });
      const args = ['record', '--cache', dir, '--split', 'train', '--method', 'random', '--keep-rate', '0.5', '--endpoints', team, '--concurrency', '4'];
      const outputs: string[] = [];
      const random = seedrandom('kill points');
      let killed = 0;
      for (let k = 0; k < 3; k++) {
        const run = await cli(args, (c) => {
          child = c;
          killAt = server.stats.attempts + 10 + Math.floor(random() * 50);
        });
        killAt = Infinity; // (a run that finished first is not killed)
        outputs.push(run.out);
        if (run.signal === 'SIGKILL') killed++;
      }
      expect(killed).toBeGreaterThanOrEqual(2);
      expect(lostAtKill.size).toBe(killed);
      const final = await cli(args);
      outputs.push(final.out);
      expect(final.code, final.out).toBe(0);
      expect(final.out).toMatch(/record tier \(team .*team\.json\): \d+ calls, .* \d+ attempts, retries: rate-limit \d+, server \d+, connection \d+/);

      // The journal: whole lines; each response once, never asked again once journaled; every
      // intent answered; every call serve saw was journaled as an intent before it was sent.
      const text = readFileSync(journalPath(dir), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const lines = text
        .slice(0, -1)
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; id: string; key?: string });
      const responses = lines.filter((l) => l.type === 'response').map((l) => l.id);
      expect(new Set(responses).size).toBe(responses.length);
      const answered = new Set<string>();
      for (const l of lines) {
        expect(answered.has(l.id)).toBe(false);
        if (l.type === 'response') answered.add(l.id);
      }
      expect(lines.filter((l) => l.type === 'intent').every((l) => answered.has(l.id))).toBe(true);
      const intents = new Set(lines.map((l) => l.key));
      expect([...keysSent].every((key) => intents.has(key!))).toBe(true);
      // Every context recorded once, and each paid for once: serve's paid calls are the contexts recorded.
      const cache = loadCache(dir, () => {});
      const recorded = cache.responses.filter((r) => r.id.startsWith('rec/'));
      expect(recorded.length).toBe(responses.length);
      expect(new Set(recorded.map(sameRequest)).size).toBe(recorded.length);
      expect(server.stats.paid).toBe(recorded.length);
      expect(sentAgain).toEqual(lostAtKill); // each reply lost at a kill was asked for again (and, by the count above, not paid again)
      const simulator = inProcess(sim);
      for (const r of recorded) {
        const request = {
          cache,
          question: cache.questions[r.q],
          agent: cache.agents[r.a],
          round: r.round,
          context: r.ctx.map((c) => cache.responses[c]),
          prev: cache.responses[r.prevIndex],
          sample: r.sample,
        };
        expect(essence(r), r.id).toEqual(essence(await simulator(request)));
      }

      // A rerun asks nothing; the cache validates; the key is in no output and no file.
      const again = await cli(args);
      outputs.push(again.out);
      expect(again.out).toMatch(/record tier \(team .*\): 0 calls/);
      expect(server.stats.paid).toBe(recorded.length);
      const validate = await cli(['cache', 'validate', dir]);
      outputs.push(validate.out);
      expect(validate.code, validate.out).toBe(0);
      for (const out of outputs) expect(out).not.toContain(KEY);
      for (const file of filesUnder(dir)) expect(readFileSync(file, 'latin1'), file).not.toContain(KEY);
    } finally {
      await server.close();
    }
  }, 600_000);
});
