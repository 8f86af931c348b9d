// Provenance: how a run folder or a report was made, so that a result can be traced to the code,
// data and machine that produced it. `provenance.json` holds one session per process that worked
// on it (a resumed run adds one): the code (package, git commit, uncommitted changes), the command
// line, start and end time, wall time per epoch, node and runtime versions, the content hash of
// every cache and embeddings file read, and the engine, backend and threads that actually ran.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { sha256File } from './cache/hash.ts';
import { writeFileAtomic, writeFilesAtomic } from './io/atomic.ts';
import { readJsonFile } from './io/jsonFile.ts';
import { redactCredentials } from './io/commandLine.ts';

const require = createRequire(import.meta.url);
/** The repository (or installed package) root: where the code that runs lives, from its sources or from dist/. */
const CODE_ROOT = dirname(require.resolve('cpp-workbench/package.json'));

/** Runtimes whose version decides numbers or speed; listed when installed. */
const RUNTIMES = [
  'onnxruntime-node',
  '@tensorflow/tfjs',
  '@tensorflow/tfjs-backend-wasm',
  '@tensorflow/tfjs-node',
  '@tensorflow/tfjs-node-gpu',
  '@energetic-ai/embeddings',
];

const FileHash = z.strictObject({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
type FileHash = z.infer<typeof FileHash>;

/** What computed the policy math: the engine chosen (never `auto`), its TF.js backend, its CPU threads. */
export const ComputeRan = z.strictObject({
  engine: z.enum(['onnx', 'webgpu', 'onnx-cuda', 'tfjs']),
  backend: z.string().nullable().describe('TF.js backend that loaded (tfjs engine only)'),
  threads: z.number().int().positive().nullable().describe('CPU threads of ONNX Runtime (onnx engine only)'),
  adapter: z
    .strictObject({ vendor: z.string(), architecture: z.string(), device: z.string(), description: z.string(), software: z.boolean() })
    .optional()
    .describe('the WebGPU adapter the webgpu engine ran on (software: a CPU implementation such as lavapipe)'),
});
export type ComputeRan = z.infer<typeof ComputeRan>;

const Session = z.strictObject({
  command: z.array(z.string()).describe('process.argv after node: the script and its arguments'),
  launchedBy: z.array(z.string()).nullable().describe('command line of the parent job (main, ablate) that started this training child'),
  cwd: z.string(),
  code: z.strictObject({
    package: z.string(),
    commit: z.string().nullable().describe('git HEAD of the code; null outside a git checkout'),
    dirty: z.boolean().nullable().describe('uncommitted changes (tracked or untracked, not ignored) in the checkout'),
  }),
  host: z.strictObject({ platform: z.string(), arch: z.string(), cpus: z.number().int(), cpuModel: z.string() }),
  versions: z.record(z.string(), z.string()).describe('node and each installed runtime'),
  started: z.iso.datetime(),
  ended: z.iso.datetime().nullable().describe('null while running, or if the process was killed'),
  caches: z.array(FileHash),
  embeddings: z.array(FileHash),
  compute: ComputeRan.nullable(),
  epochs: z
    .array(z.strictObject({ epoch: z.number().int().positive(), seconds: z.number().nonnegative() }))
    .describe('wall time of each epoch the process of this entry finished'),
  time: z
    .record(z.string(), z.strictObject({ seconds: z.number().nonnegative(), count: z.number().int().nonnegative() }))
    .optional()
    .describe("a training session's wall time by phase (setup, steps, validation, checkpoints, end: train/timeSplit.ts), once it ended"),
  setupParts: z
    .record(z.string(), z.number().nonnegative())
    .optional()
    .describe("a training session's setup in seconds by part (hash, load, environments, embeddings, replays, engine, other: train/timeSplit.ts)"),
  inputs: z.array(FileHash).describe('policies and checkpoints a report evaluated, or a run started from'),
});
export type Session = z.infer<typeof Session>;

export const Provenance = z.strictObject({
  format: z.literal('cpp-provenance'),
  version: z.literal(1),
  sessions: z.array(Session).min(1),
});
export type Provenance = z.infer<typeof Provenance>;

/** SHA-256 of a file's content, read as a stream (a large cache is never held in memory); `keep`: kept beside it (src/cache/hash.ts). */
export async function hashFile(path: string, keep = false): Promise<FileHash> {
  return { path, bytes: statSync(path).size, sha256: await sha256File(path, keep) };
}

// `status` with --no-optional-locks: it must not take the repository's index.lock, which a process
// killed during it would leave behind for the user's next git command.
const git = (...args: string[]) => execFileSync('git', args, { cwd: CODE_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/**
 * Commit and dirty flag of the code's checkout; both null when the code is not in one (an installed
 * package). Read once per process: the code a process runs is the code it started with (a warm
 * training process trains run after run).
 */
let code: Session['code'] | undefined;
const codeState = (): Session['code'] => (code ??= readCodeState());

function readCodeState(): Session['code'] {
  const pkg = require(join(CODE_ROOT, 'package.json')) as { name: string; version: string };
  try {
    if (relative(git('rev-parse', '--show-toplevel'), CODE_ROOT) !== '') throw new Error('not the checkout root');
    return { package: `${pkg.name}@${pkg.version}`, commit: git('rev-parse', 'HEAD'), dirty: git('--no-optional-locks', 'status', '--porcelain') !== '' };
  } catch {
    return { package: `${pkg.name}@${pkg.version}`, commit: null, dirty: null };
  }
}

function runtimeVersions(): Record<string, string> {
  const versions: Record<string, string> = { node: process.versions.node };
  for (const name of RUNTIMES) {
    try {
      versions[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      // not installed (the optional TF.js bindings): nothing ran on it
    }
  }
  return versions;
}

/** Environment variable through which a parent job passes its command line to training children. */
export const LAUNCHED_BY = 'CPP_WORKBENCH_LAUNCHED_BY';

export async function startSession(
  o: { caches?: string[]; embeddings?: string[]; compute?: ComputeRan | null; inputs?: string[]; command?: string[] } = {},
): Promise<Session> {
  // A cache's files are hashed again by every run on it: their hashes are kept beside them.
  const hashAll = (files: string[] = [], keep = false) => Promise.all(files.filter((f) => existsSync(f)).map((f) => hashFile(f, keep)));
  const cpu = cpus();
  const parent = process.env[LAUNCHED_BY];
  return {
    command: redactCredentials(o.command ?? process.argv.slice(1)),
    launchedBy: parent ? redactCredentials(JSON.parse(parent) as string[]) : null,
    cwd: process.cwd(),
    code: codeState(),
    host: { platform: process.platform, arch: process.arch, cpus: cpu.length, cpuModel: cpu[0]?.model.trim() ?? 'unknown' },
    versions: runtimeVersions(),
    started: new Date().toISOString(),
    ended: null,
    caches: await hashAll(o.caches, true),
    embeddings: await hashAll(o.embeddings, true),
    compute: o.compute ?? null,
    epochs: [],
    inputs: await hashAll(o.inputs),
  };
}

export const readProvenance = (file: string): Provenance => readJsonFile(file, Provenance);

const provenanceJson = (p: Provenance) => JSON.stringify(Provenance.parse(p), null, 2) + '\n';
const save = (file: string, p: Provenance) => writeFileAtomic(file, [provenanceJson(p)]);

/**
 * A run folder's provenance: `session` is added to the file (after the earlier sessions of a
 * resumed run; a new run starts the file afresh), and the file is rewritten after every epoch and
 * at the end, so a killed run still tells what it did up to its last epoch.
 */
export function recordRun(file: string, session: Session, resume: boolean) {
  const p: Provenance = { format: 'cpp-provenance', version: 1, sessions: [...(resume && existsSync(file) ? readProvenance(file).sessions : []), session] };
  save(file, p);
  return {
    epoch(epoch: number, seconds: number) {
      session.epochs.push({ epoch, seconds: Math.round(seconds * 1000) / 1000 });
      save(file, p);
    },
    /** The session ended; `time`: how its wall time split (a training run's phases), `setupParts`: its setup's. */
    end(time?: Session['time'], setupParts?: Session['setupParts']) {
      session.ended = new Date().toISOString();
      if (time) session.time = time;
      if (setupParts) session.setupParts = setupParts;
      save(file, p);
    },
  };
}

/** End a report's session: write `provenance.json` beside the report and add its summary to the report's Markdown file, together. */
export function recordReport(dir: string, session: Session, markdownFile: string): string {
  session.ended = new Date().toISOString();
  const file = join(dir, 'provenance.json');
  writeFilesAtomic([
    [file, [provenanceJson({ format: 'cpp-provenance', version: 1, sessions: [session] })]],
    [markdownFile, [readFileSync(markdownFile, 'utf8'), `\n${provenanceMarkdown(session)}\n`]],
  ]);
  return file;
}

const short = (h: FileHash) => `${h.path} (${h.bytes} bytes, sha256 ${h.sha256.slice(0, 16)})`;

/** A short human summary of a session, for the end of a report. */
function provenanceMarkdown(s: Session): string {
  const c = s.code;
  const seconds = s.ended ? ((Date.parse(s.ended) - Date.parse(s.started)) / 1000).toFixed(1) : '?';
  const compute = s.compute
    ? `${s.compute.engine}${s.compute.backend ? ` on ${s.compute.backend}` : ''}` +
      (s.compute.threads ? `, ${s.compute.threads} thread${s.compute.threads === 1 ? '' : 's'}` : '')
    : 'no policy math';
  return [
    '## Provenance',
    '',
    `- code: ${c.package}, ${c.commit ? `commit ${c.commit}${c.dirty ? ' with uncommitted changes' : ''}` : 'not a git checkout'}`,
    `- command: ${s.command.join(' ')}${s.launchedBy ? ` (started by ${s.launchedBy.join(' ')})` : ''}`,
    `- time: ${s.started} to ${s.ended ?? '(not ended)'}, ${seconds} s`,
    `- versions: ${Object.entries(s.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `- host: ${s.host.platform}/${s.host.arch}, ${s.host.cpus} × ${s.host.cpuModel}`,
    ...s.caches.map((h) => `- cache: ${short(h)}`),
    ...s.embeddings.map((h) => `- embeddings: ${short(h)}`),
    ...s.inputs.map((h) => `- input: ${short(h)}`),
    `- compute: ${compute}`,
    '',
    'Full record: provenance.json.',
  ].join('\n');
}
