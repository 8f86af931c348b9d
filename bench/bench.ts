// `npm run bench [-- SECTION...]`: speed figures (goals from the issues, printed beside each figure).
// Sections (all by default):
//   replay   replayed Full-Debate debates per second, one thread (goal >= 20,000/s)
//   load     load time of a 10,000-question cache (goal <= 5 s)
//   engines  policy-engine train steps per engine, batch and thread count, beside PyTorch's steady
//            state (goal >= 1.0x) and the matmul bound (goal >= 60% at batch 1024); engines.ts
//   loop     the whole training loop beside its engine step (goal >= 80%); engines.ts
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { keepAll, keepOwn, replay, type KeepRule } from '../src/env/debate.ts';
import { makeEnvironment } from '../src/env/environment.ts';
import { generateCache } from '../src/sim/generate.ts';
import { cpus } from 'node:os';
import { benchEngines, benchLoop, loadNote } from './engines.ts';
import { UsageError } from '../src/io/errors.ts';

const SECTIONS = ['replay', 'load', 'engines', 'loop'];
const asked = process.argv.slice(2);
for (const a of asked) if (!SECTIONS.includes(a)) throw new UsageError(`bench: unknown section '${a}' (sections: ${SECTIONS.join(', ')})`);
const wanted = (section: string) => asked.length === 0 || asked.includes(section);
console.log(`${new Date().toISOString()}, ${cpus()[0].model}, ${cpus().length} cores, Node ${process.version}; ${loadNote(true)}`);

const DEFAULT = 'cache/default';
const BIG = 'cache/bench-10k';

async function ensure(dir: string, questions: number) {
  if (existsSync(cacheFilePath(dir))) return;
  console.error(`generating ${dir} (${questions} questions), once`);
  await generateCache(dir, { questions }, `bench-${questions}`);
}

function rate(label: string, run: () => number, seconds = 3) {
  run(); // warm up
  let debates = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) debates += run();
  const perSecond = debates / ((performance.now() - start) / 1000);
  return { label, perSecond };
}

await ensure(DEFAULT, 1200);
if (wanted('replay')) {
  const cache = loadCache(DEFAULT);
  const env = makeEnvironment(cache, { miss: 'model' });
  const questions = cache.questions.map((q) => q.index);
  const replayAll = (rule: KeepRule) => () => {
    for (const q of questions) replay(env, q, rule);
    return questions.length;
  };
  const keepHalf: KeepRule = (d, n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => ((d.q + i + j + d.round) & 1) === 0));
  const rows = [
    rate('Full-Debate (exact tier)', replayAll(keepAll)),
    rate('No-communication (exact tier)', replayAll(keepOwn)),
    rate('half the edges (mostly tier 3)', replayAll(keepHalf)),
  ];
  console.log(`Replay, one thread, ${cache.questions.length}-question default cache, ${env.team.length} agents x ${env.rounds} rounds:`);
  for (const r of rows) console.log(`  ${r.label.padEnd(34)} ${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} debates/s`);
  console.log(`  goal: Full-Debate >= 20,000 debates/s -> ${rows[0].perSecond >= 20000 ? 'met' : 'NOT met'}`);
}

if (wanted('load')) {
  await ensure(BIG, 10000);
  // Load in a fresh process, as a user's run would.
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `
    const { loadCache } = await import('./src/cache/load.ts');
    const t = performance.now(); const c = loadCache('${BIG}');
    console.log(JSON.stringify({ ms: performance.now() - t, questions: c.questions.length, responses: c.responses.length }));
  `,
    ],
    { encoding: 'utf8' },
  );
  const load = JSON.parse(out.trim().split('\n').at(-1)!);
  console.log(
    `\nLoad ${BIG}: ${load.questions} questions, ${load.responses.toLocaleString('en-US')} responses ` +
      `in ${(load.ms / 1000).toFixed(2)} s (goal <= 5 s -> ${load.ms <= 5000 ? 'met' : 'NOT met'})`,
  );
}

if (wanted('engines')) await benchEngines();
if (wanted('loop')) await benchLoop(DEFAULT);
console.log(`\nAt the end: ${loadNote(false)}`);
