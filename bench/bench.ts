// `npm run bench [-- SECTION...]`: speed figures (each printed beside its goal,
// and at the end all of them in one Markdown table with the load each was taken under).
// Sections (all by default; `waits` names the group of the times a user waits for: load, loop,
// startup, grid, main, import and table6, about 10 minutes on 2 quiet cores):
//   replay   replayed Full-Debate debates per second, one thread (goal >= 20,000/s)
//   load     load time of a 10,000-question cache (goal <= 2.5 s)
//   engines  policy-engine train steps per engine, batch and thread count, beside PyTorch's steady
//            state (goal >= 1.0x) and the matmul bound (goal >= 60% at batch 1024); engines.ts
//   loop     the whole training loop beside its engine step (goal >= 80%); engines.ts
//   startup  start-up of the built bin: --help (goal <= 0.5 s), baselines (goal <= 2 s); startup.ts
//   grid     6 one-epoch cells with 2 workers beside one alone (goal <= 1.6x), a cell's time beyond its steps (goal <= 1 s); jobs.ts
//   main     the main job (goal <= 20 s); jobs.ts
//   import   the DyLAN import, 44 files (goal <= 18 s, 450 MB); jobs.ts
//   table6   Table 6's 110 cells trained and evaluated with 2 workers (goal <= 6 min); jobs.ts
//   gpu      the GPU engine beside the CPU engine and PyTorch on CUDA per batch size, the adapter,
//            bytes a step moves (goal >= 25x 2 CPU threads at batch 16,384 on a GPU); gpu.ts. Only
//            when asked (`gpu 256 1024` for some batches): on a software adapter it takes minutes and
//            measures the CPU. `--json FILE` writes its figures as JSON; `--trial-seconds S` makes each
//            warm-up and timed trial S seconds (default 1; 0: one step each, figures of no precision
//            for a check that every step runs: the device check's --small).
//   heads    a training step with the revise and stop heads beside an edges-only one (goal <= 1.3x); decisionHeads.ts
//   scale    1,000, 10,000 and 100,000 generated questions: load, memory, replay, baselines, an epoch
//            (only when named: `scale`, or `scale 1000 10000` for some sizes, `no-epoch` to leave the epoch out); scale.ts
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cacheFilePath, loadCache } from '../src/cache/load.ts';
import { edgesOnly, keepAll, keepOwn, replay, type DecisionRule } from '../src/env/debate.ts';
import { makeEnvironment } from '../src/env/environment.ts';
import { generateCache } from '../src/sim/generate.ts';
import { cpus } from 'node:os';
import { benchEngines, benchLoop, loadNote } from './engines.ts';
import { benchStartup } from './startup.ts';
import { beside, goalTable, hasFigures } from './goals.ts';
import { benchGrid, benchImport, benchMain, benchTable6 } from './jobs.ts';
import { benchGpu } from './gpu.ts';
import { UsageError } from '../src/io/errors.ts';
import { benchScale, SCALE_SIZES } from './scale.ts';
import { benchDecisionHeads } from './decisionHeads.ts';

const SECTIONS = ['replay', 'load', 'engines', 'loop', 'startup', 'grid', 'main', 'import', 'table6', 'gpu', 'heads', 'scale'];
const GROUPS: Record<string, string[]> = { waits: ['load', 'loop', 'startup', 'grid', 'main', 'import', 'table6'] };
const jsonAt = process.argv.indexOf('--json');
const json = jsonAt > 0 ? process.argv[jsonAt + 1] : undefined;
if (jsonAt > 0 && !json) throw new UsageError('bench: --json needs a file');
const trialAt = process.argv.indexOf('--trial-seconds');
const trialSeconds = trialAt > 0 ? Number(process.argv[trialAt + 1]) : undefined;
if (trialSeconds !== undefined && !(trialSeconds >= 0)) throw new UsageError('bench: --trial-seconds needs a number of seconds, 0 or more');
const args = process.argv.slice(2).filter((a, i) => a !== 'no-epoch' && a !== '--json' && i + 1 !== jsonAt && a !== '--trial-seconds' && i + 1 !== trialAt);
const noEpoch = process.argv.includes('no-epoch');
const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
const asked = args.filter((a) => !/^\d+$/.test(a)).flatMap((a) => GROUPS[a] ?? [a]);
for (const a of asked)
  if (!SECTIONS.includes(a))
    throw new UsageError(`bench: unknown section '${a}' (sections: ${SECTIONS.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')})`);
if (sizes.length && asked.includes('scale') === asked.includes('gpu'))
  throw new UsageError(
    `bench: sizes (${sizes.join(', ')}) belong to the scale section or the gpu section, one of them: \`scale ${sizes.join(' ')}\` or \`gpu ${sizes.join(' ')}\``,
  );
if (json && !asked.includes('gpu')) throw new UsageError("bench: --json writes the gpu section's figures: name `gpu`");
if (trialSeconds !== undefined && !asked.includes('gpu')) throw new UsageError("bench: --trial-seconds sets the gpu section's trials: name `gpu`");
const wanted = (section: string) => (asked.length === 0 && section !== 'gpu' && section !== 'scale') || asked.includes(section);
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

if (SECTIONS.some((s) => s !== 'gpu' && s !== 'scale' && wanted(s))) await ensure(DEFAULT, 1200);
if (wanted('replay')) {
  const cache = loadCache(DEFAULT);
  const env = makeEnvironment(cache, { miss: 'model' });
  const questions = cache.questions.map((q) => q.index);
  const replayAll = (rule: DecisionRule) => () => {
    for (const q of questions) replay(env, q, rule);
    return questions.length;
  };
  const keepHalf = edgesOnly((d, n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => ((d.q + i + j + d.round) & 1) === 0)));
  const rows = [
    rate('Full-Debate (exact tier)', replayAll(keepAll)),
    rate('No-communication (exact tier)', replayAll(keepOwn)),
    rate('half the edges (mostly tier 3)', replayAll(keepHalf)),
  ];
  console.log(`Replay, one thread, ${cache.questions.length}-question default cache, ${env.team.length} agents x ${env.rounds} rounds:`);
  for (const r of rows) console.log(`  ${r.label.padEnd(34)} ${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} debates/s`);
  console.log(`  ${beside('replay, Full-Debate, one thread', rows[0].perSecond, 'debates/s', { limit: 20000, atMost: false })}`);
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
    const t = performance.now(); const cpu = process.cpuUsage(); const c = loadCache('${BIG}'); const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    console.log(JSON.stringify({ ms: performance.now() - t, cpuMs, questions: c.questions.length, responses: c.responses.length }));
  `,
    ],
    { encoding: 'utf8' },
  );
  const load = JSON.parse(out.trim().split('\n').at(-1)!);
  console.log(
    `\nLoad ${BIG}: ${load.questions} questions, ${load.responses.toLocaleString('en-US')} responses ` +
      `in ${(load.ms / 1000).toFixed(2)} s, CPU ${(load.cpuMs / 1000).toFixed(2)} s ` +
      `(${beside('load of a 10,000-question cache', load.ms / 1000, 's', { limit: 2.5, atMost: true }, `CPU ${(load.cpuMs / 1000).toFixed(2)} s`)})`,
  );
}

if (wanted('engines')) await benchEngines();
if (wanted('loop')) await benchLoop(DEFAULT);
if (wanted('startup')) await benchStartup(DEFAULT);
if (wanted('grid')) benchGrid(DEFAULT);
if (wanted('main')) benchMain(DEFAULT);
if (wanted('import')) benchImport();
if (wanted('table6')) benchTable6();
if (wanted('gpu')) await benchGpu({ batches: sizes.length ? sizes : undefined, json, trialSeconds });
if (wanted('heads')) await benchDecisionHeads();
if (wanted('scale')) await benchScale(sizes.length ? sizes : SCALE_SIZES, !noEpoch);
console.log(`\nAt the end: ${loadNote(false)}`);
if (hasFigures()) console.log(`\n${goalTable()}`);
