// `npm run reliability [-- --trials 20 --parts kill,corpus,concurrency,stops --commands train,main --signals SIGKILL,SIGINT --seed S --control]`:
// the reliability suite. Kill -9, SIGINT and SIGTERM trials of every writing command (kill.ts), the
// malformed-input corpus (corpus.ts), the concurrency cases (concurrency.ts), Ctrl-C trials of every
// long command on a cache of 2,000 questions (stops.ts; --commands names kill and stop commands alike); prints the figures as
// tables and writes them to results/reliability/report.{json,md} (report-<parts>.* for some parts). Exits 1 when any trial or case fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { markdownTable } from '../src/table.ts';
import {
  CONCURRENCY_CASES,
  concurrencyCase,
  concurrencyPassed,
  staleLockCase,
  takeoverPassed,
  type ConcurrencyResult,
  type TakeoverResult,
} from './concurrency.ts';
import { diskPassed, diskTrials, diskTrialsUnavailable, type DiskTrial } from './disk.ts';
import { CORPUS, casePassed, runCase, type CorpusResult } from './corpus.ts';
import { REPO } from './harness.ts';
import { NORMALISATION } from './tree.ts';
import { makeInputs } from './inputs.ts';
import { KILL_COMMANDS, killTrials, PHASES, stopPassed, trialPassed, type KillTrial } from './kill.ts';
import { SIGNALS, type StopSignal } from './harness.ts';
import { makeBig, STOP_COMMANDS, stopsSections, stopTrialPassed, stopTrials, type StopTrial } from './stops.ts';
import { UsageError } from '../src/io/errors.ts';

/** Columns of the kill trials' table. */
const KILL_COLUMNS = [
  'command',
  'signal',
  'trials',
  'killed mid-run',
  `phase (${PHASES.join(' / ')})`,
  'exit 130/143, no lock or *.tmp, says how to continue',
  'resumed a copy',
  'identical to uninterrupted',
  'trials changing files outside',
  'trials with unparseable files',
  'trials leaving *.tmp',
  'trials with refusals',
  'stack traces or hangs',
  'uninterrupted run',
  'wall time',
];

const { values: o } = parseArgs({
  options: {
    trials: { type: 'string', default: '20' },
    parts: { type: 'string', default: 'kill,disk,corpus,concurrency' },
    commands: { type: 'string' },
    signals: { type: 'string', default: SIGNALS.join(',') },
    cases: { type: 'string' }, // a regex: only the corpus and concurrency cases whose name matches
    seed: { type: 'string', default: 'reliability' },
    control: { type: 'boolean', default: false },
  },
});
const parts = o.parts.split(',');
const PARTS = ['kill', 'disk', 'corpus', 'concurrency', 'stops'];
for (const p of parts) if (!PARTS.includes(p)) throw new UsageError(`--parts: unknown part '${p}' (${PARTS.join(', ')})`);
const trials = Number(o.trials);
if (!Number.isInteger(trials) || trials < 1) throw new UsageError(`--trials: a whole number of at least 1 (found ${o.trials})`);
const commands = o.commands ? o.commands.split(',') : [...KILL_COMMANDS, ...STOP_COMMANDS].map((c) => c.name);
const commandNames = [...new Set([...KILL_COMMANDS, ...STOP_COMMANDS].map((k) => k.name))];
for (const c of commands) if (!commandNames.includes(c)) throw new UsageError(`--commands: unknown command '${c}' (${commandNames.join(', ')})`);

const signals = o.signals.split(',') as StopSignal[];
for (const s of signals) if (!SIGNALS.includes(s)) throw new UsageError(`--signals: unknown signal '${s}' (${SIGNALS.join(', ')})`);

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
const started = new Date();
const t0 = performance.now();
const log = (line: string) => console.error(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${line}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

log(`reliability suite, ${started.toISOString()}, ${cpus().length} cores, load average ${load()} (1 / 5 / 15 min)`);
// The report's name, and inputs of its own, so that runs of different parts or commands may go side by side.
const name = parts.length === PARTS.length && !o.commands ? 'report' : `report-${parts.join('+')}${o.commands ? `-${o.commands.replace(/\W+/g, '-')}` : ''}`;
const inputs = await makeInputs(log, `inputs-${name}`);

const kill: { command: string; referenceMs: number; unstable: string[]; trials: KillTrial[]; ms: number }[] = [];
if (parts.includes('kill'))
  for (const command of KILL_COMMANDS.filter((c) => commands.includes(c.name) && (c.available?.() ?? true))) {
    const start = performance.now();
    const { reference, trials: results } = await killTrials(
      command,
      inputs,
      trials,
      o.seed,
      (t) =>
        log(
          `${t.command} ${t.signal} #${t.trial}: at ${seconds(t.killAtMs)} after start-up (${t.phase})` +
            `${t.killed ? '' : ' (it had finished)'}${t.copied ? ', resumed a copy' : ''}; ` +
            (trialPassed(t) ? 'ok' : `FAILED: ${JSON.stringify({ ...t, command: undefined, trial: undefined })}`),
        ),
      o.control,
      signals,
    );
    kill.push({ command: command.name, referenceMs: reference.ms, unstable: reference.unstable, trials: results, ms: performance.now() - start });
  }

const disk: { command: string; growth: number; trials: DiskTrial[]; ms: number }[] = [];
const noDisk = parts.includes('disk') ? diskTrialsUnavailable() : null;
if (noDisk) log(`disk-full trials skipped: ${noDisk}`);
else if (parts.includes('disk'))
  for (const command of KILL_COMMANDS.filter((c) => commands.includes(c.name) && (c.available?.() ?? true))) {
    const start = performance.now();
    const { growth, trials: results } = await diskTrials(command, inputs, trials, o.seed, (t) =>
      log(`${t.command} disk full #${t.trial}: room ${Math.round(100 * t.share)}%, exit ${t.code}; ${diskPassed(t) ? 'ok' : `FAILED: ${JSON.stringify(t)}`}`),
    );
    disk.push({ command: command.name, growth, trials: results, ms: performance.now() - start });
  }

const stops: StopTrial[] = [];
if (parts.includes('stops')) {
  await makeBig(inputs, log);
  for (const command of STOP_COMMANDS.filter((c) => commands.includes(c.name) && (c.available?.() ?? true)))
    stops.push(
      ...(await stopTrials(command, inputs, trials, o.seed, (t) =>
        log(
          `${t.command} SIGINT #${t.trial}: at ${seconds(t.atMs)} of ${seconds(t.runMs)}: ${t.outcome}, ended ${t.latencyMs} ms after the signal; ` +
            (stopTrialPassed(t) ? 'ok' : `FAILED: ${JSON.stringify(t)}`),
        ),
      )),
    );
}

const corpus: CorpusResult[] = [];
if (parts.includes('corpus'))
  for (const c of CORPUS.filter((c) => (c.available?.() ?? true) && (!o.cases || new RegExp(o.cases).test(c.id)))) {
    const r = await runCase(c, inputs);
    log(`${r.id}: ${casePassed(r) ? 'ok' : `FAILED: ${describeCase(r)}`}`);
    corpus.push(r);
  }

const concurrency: ConcurrencyResult[] = [];
let takeover: TakeoverResult | undefined;
if (parts.includes('concurrency')) {
  for (const c of CONCURRENCY_CASES.filter((c) => !o.cases || new RegExp(o.cases).test(c.name))) {
    const r = await concurrencyCase(c, inputs);
    log(`${r.case}: ${concurrencyPassed(r) ? 'ok' : `FAILED: ${JSON.stringify(r)}`}`);
    concurrency.push(r);
  }
  if (!o.cases || new RegExp(o.cases).test('a lock left by a kill -9 is taken over')) {
    takeover = await staleLockCase(inputs);
    log(`${takeover.case}: ${takeoverPassed(takeover) ? 'ok' : `FAILED: ${JSON.stringify(takeover)}`}`);
  }
}

// --- the figures ---------------------------------------------------------------------------------

const count = <T>(xs: T[], f: (x: T) => boolean) => xs.filter(f).length;
const sections: string[] = [];
if (kill.length) {
  const rows = kill.flatMap(({ command, referenceMs, trials: all, ms }) =>
    signals.map((signal) => {
      const ts = all.filter((t) => t.signal === signal);
      return [
        command,
        signal,
        ts.length,
        count(ts, (t) => t.killed),
        PHASES.map((p) => count(ts, (t) => t.phase === p)).join(' / '),
        signal === 'SIGKILL' ? '-' : `${count(ts, (t) => !!t.stopped && stopPassed(signal, t.stopped))}/${count(ts, (t) => !!t.stopped)}`,
        count(ts, (t) => t.copied),
        `${count(ts, (t) => t.identical)}/${ts.length}`,
        count(ts, (t) => t.outside.length > 0),
        count(ts, (t) => t.unparseableAfterKill.length + t.unparseable.length > 0),
        count(ts, (t) => t.leftoverTemp.length > 0),
        `${count(ts, (t) => t.refusals.length > 0)} ` +
          `(${count(ts, (t) => t.refusals.some((r) => /--force|--resume|again|rerun|start/i.test(r.said)))} say what to run)`,
        count(ts, (t) => t.stackTrace || t.hung),
        seconds(referenceMs),
        seconds(ms),
      ];
    }),
  );
  sections.push(`### Kill -9, SIGINT and SIGTERM ` + `trials\n\n${markdownTable(KILL_COLUMNS, rows)}`);
  const failed = kill.flatMap((k) => k.trials.filter((t) => !trialPassed(t)));
  if (failed.length)
    sections.push(
      `Failed trials (folders kept under ` +
        `results/reliability/work/kill/):\n\n` +
        failed
          .map(
            (t) => `- ${t.command} ${t.signal} #${t.trial} (at ${seconds(t.killAtMs)} after start-up${t.copied ? ', copy resumed' : ''}): ${describeTrial(t)}`,
          )
          .join('\n'),
    );
  const unstable = kill.filter((k) => k.unstable.length);
  if (unstable.length)
    sections.push(
      `Files two uninterrupted runs already disagree on (left out of the comparison): ` +
        `${unstable.map((k) => `${k.command}: ${k.unstable.join(', ')}`).join('; ')}`,
    );
}
if (disk.length) {
  const rows = disk.map(({ command, growth, trials: ts, ms }) => [
    command,
    ts.length,
    `${(growth / 1024).toFixed(0)} KiB`,
    count(ts, (t) => t.code === 1),
    `${count(ts, (t) => t.code === 1 && t.named)}/${count(ts, (t) => t.code === 1)}`,
    count(ts, (t) => t.code !== 0 && t.code !== 1),
    count(ts, (t) => t.leftoverTemp.length > 0),
    count(ts, (t) => t.unparseable.length > 0),
    count(ts, (t) => t.outside.length > 0),
    `${count(ts, (t) => t.identical)}/${ts.length}`,
    count(ts, (t) => t.stackTrace),
    seconds(ms),
  ]);
  sections.push(
    `### Disk full\n\n${markdownTable(
      [
        'command',
        'trials',
        'written by a whole run',
        'exit 1 (disk full)',
        'names path and ENOSPC',
        'other exit codes',
        'trials leaving *.tmp',
        'trials with unparseable files',
        'trials changing files outside',
        'identical after the rerun with room',
        'stack traces',
        'wall time',
      ],
      rows,
    )}`,
  );
  const failed = disk.flatMap((d) => d.trials.filter((t) => !diskPassed(t)));
  if (failed.length)
    sections.push(
      `Failed disk-full trials (folders kept under results/reliability/work/disk/):\n\n` +
        failed.map((t) => `- ${t.command} #${t.trial} (room ${Math.round(100 * t.share)}%): ${JSON.stringify({ ...t, command: undefined })}`).join('\n'),
    );
}
if (noDisk) sections.push(`Disk-full trials skipped: ${noDisk}.`);
sections.push(...stopsSections(stops));
if (corpus.length) {
  const kinds = [...new Set(corpus.map((r) => r.kind))];
  const row = (kind: string, rs: CorpusResult[]) => [
    kind,
    rs.length,
    count(rs, (r) => r.codeOk),
    count(rs, (r) => r.named),
    count(rs, (r) => !r.stackTrace),
    count(rs, (r) => !r.rawSchema),
    count(rs, (r) => r.changed.length === 0),
    count(rs, casePassed),
  ];
  sections.push(
    `### Malformed-input corpus\n\n${markdownTable(
      [
        'kind',
        'cases',
        'expected exit code',
        'error names file/line/field or flag',
        'no stack trace',
        "a sentence, not zod's wording",
        'no file created or changed',
        'passed',
      ],
      [
        ...kinds.map((k) =>
          row(
            k,
            corpus.filter((r) => r.kind === k),
          ),
        ),
        row('all', corpus),
      ],
    )}`,
  );
  const failed = corpus.filter((r) => !casePassed(r));
  if (failed.length) sections.push(`Failed cases:\n\n${failed.map((r) => `- ${r.id}: ${describeCase(r)}`).join('\n')}`);
}
if (concurrency.length) {
  const rows: (string | number)[][] = concurrency.map((r) => [
    r.case,
    r.beside ? (r.refused ? 'yes' : 'no') : 'not beside',
    r.namesPid ? 'yes' : 'no',
    String(r.firstCode),
    String(r.secondCode),
    r.stackTrace ? 'yes' : 'no',
    concurrencyPassed(r) ? 'yes' : 'no',
  ]);
  if (takeover) rows.push([takeover.case, '-', '-', '-', takeover.tookOver ? '0' : 'non-zero', '-', takeoverPassed(takeover) ? 'yes' : 'no']);
  sections.push(
    `### Concurrency\n\n${markdownTable(['case', 'second refused', 'names the holder pid', 'first exit', 'second exit', 'stack trace', 'passed'], rows)}`,
  );
  const failed = [
    ...concurrency
      .filter((r) => !concurrencyPassed(r))
      .map(
        (r) =>
          `- ${r.case}: ${r.beside ? '' : 'the first ended before the second (not beside it); '}second: ` +
          `"${r.said}"${r.firstSaid ? `; first (exit ${r.firstCode}): "${r.firstSaid}"` : ''}`,
      ),
    ...(takeover && !takeoverPassed(takeover)
      ? [`- ${takeover.case}: lock left ${JSON.stringify(takeover.lockLeft)}, after ${JSON.stringify(takeover.lockAfter)}: "${takeover.said}"`]
      : []),
  ];
  if (failed.length) sections.push(`Failed concurrency cases:\n\n${failed.join('\n')}`);
}

function describeCase(r: CorpusResult): string {
  const changed = r.changed.length ? `, changed ${r.changed.slice(0, 5).join(' ')}${r.changed.length > 5 ? ` (${r.changed.length} in all)` : ''}` : '';
  return (
    `exit ${r.code}${r.codeOk ? '' : ' (unexpected)'}${r.named ? '' : ', error not named'}${r.stackTrace ? ', stack trace' : ''}` +
    `${r.rawSchema ? ", zod's raw wording" : ''}${changed}${r.hung ? ', hung' : ''}: ` +
    `"${r.said}"`
  );
}

function describeTrial(t: KillTrial): string {
  return [
    t.stopped &&
      !stopPassed(t.signal, t.stopped) &&
      `the stop: exit ${t.stopped.code}, locks left ${JSON.stringify(t.stopped.locksLeft)}, *.tmp left ${JSON.stringify(t.stopped.tempLeft)}` +
        `${t.stopped.saidContinue ? '' : ', did not say how to continue'}`,
    !t.finished && `never finished (${t.refusals.map((r) => `${r.args}: exit ${r.code}: "${r.said}"`).join('; ')})`,
    t.differing.length && `differs in ${t.differing.slice(0, 6).join(' ')}`,
    t.outside.length && `changed outside: ${t.outside.slice(0, 6).join(' ')}`,
    t.unparseableAfterKill.length && `unparseable after the kill: ${t.unparseableAfterKill.join('; ')}`,
    t.unparseable.length && `unparseable after the rerun: ${t.unparseable.join('; ')}`,
    t.leftoverTemp.length && `left ${t.leftoverTemp.join(' ')}`,
    t.stackTrace && 'a stack trace',
    t.hung && 'hung',
    t.refusals.length && t.finished && `refused first: ${t.refusals.map((r) => `"${r.said}"`).join('; ')}`,
  ]
    .filter(Boolean)
    .join('; ');
}

const wall = performance.now() - t0;
const head =
  `Reliability suite: ${started.toISOString()}, \`${['npm run reliability --', ...process.argv.slice(2)].join(' ')}\`, ${cpus().length} ` +
  `cores (${cpus()[0].model}), load average at the end ${load()} (1 / 5 / 15 min), wall time ${(wall / 60000).toFixed(1)} min.`;
const notes =
  `What may differ between an interrupted and an uninterrupted run (everything else is compared byte for ` +
  `byte):\n\n${NORMALISATION.map((n) => `- \`${n.files.source}\`: ${n.apply === 'skip' ? 'not compared' : 'normalised'}: ${n.why}`).join('\n')}`;
const markdown = [head, ...sections, notes].join('\n\n') + '\n';
console.log(markdown);
const dir = join(REPO, 'results', 'reliability');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, `${name}.md`), markdown);
writeFileSync(
  join(dir, `${name}.json`),
  JSON.stringify(
    {
      started: started.toISOString(),
      args: process.argv.slice(2),
      wallSeconds: wall / 1000,
      load: loadavg(),
      kill,
      disk,
      corpus,
      concurrency,
      takeover,
      stops,
    },
    null,
    2,
  ) + '\n',
);
const passed =
  kill.every((k) => k.trials.every(trialPassed)) &&
  disk.every((d) => d.trials.every(diskPassed)) &&
  stops.every(stopTrialPassed) &&
  corpus.every(casePassed) &&
  concurrency.every(concurrencyPassed) &&
  (!takeover || takeoverPassed(takeover));
process.exitCode = passed ? 0 : 1;
