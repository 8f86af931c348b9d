// Every command of the command line, in the order `--help` lists them: its name (and positionals),
// its line of `--help`, and its module (flags and handler, command.ts), loaded only when the command
// runs. cli/index.ts builds the program from this list, and tests/docs.test.ts reads each command's
// flags from it (every `npx cpp-workbench ...` line of the documentation must name a real command
// and real flags).
import type { CommandEntry } from './command.ts';

export const commands: CommandEntry[] = [
  {
    command: 'main',
    describe: 'the main job: create the default simulated cache if missing, train CPP for several seeds, compare it with every baseline on the test split',
    load: async () => (await import('./main.ts')).mainCommand,
  },
  {
    command: 'baselines',
    describe: 'replay Full-Debate, No-communication and each Single agent on a split',
    load: async () => (await import('./baselines.ts')).baselinesCommand,
  },
  {
    command: 'cache',
    describe: 'create, check and inspect response caches',
    load: async () => (await import('./cache.ts')).cacheCommand,
  },
  {
    command: 'train',
    describe: 'train a FuseGLU pruning policy with REINFORCE on a cache (docs/method.md §4-7); every setting is a flag below',
    load: async () => (await import('./train.ts')).trainCommand,
  },
  {
    command: 'eval',
    describe:
      'compare methods on a split (docs/method.md §8-9): baselines, consistency votes, freeze gates, ' +
      'random pruning, static mask, trained policies; writes Markdown, CSV and an accuracy-vs-cost SVG',
    load: async () => (await import('./eval.ts')).evalCommand,
  },
  {
    command: 'ablate',
    describe:
      'run an ablation grid (variants x caches x seeds) in worker processes and print the Table 6 style table (--engine, --threads, --backend apply ' +
      'to cells whose grid settings do not set them, and to the evaluation; with --queue, to the evaluation only: workers compute with their own)',
    load: async () => (await import('./ablate.ts')).ablateCommand,
  },
  {
    command: 'pareto',
    describe:
      'train CPP to several target budgets (targetCost, in worker processes) and plot accuracy against cost with 95% intervals beside ' +
      'consistency votes at matched cost, random pruning at matched keep rate, the static mask at the same target and Full-Debate',
    load: async () => (await import('./pareto.ts')).paretoCommand,
  },
  {
    command: 'transfer',
    describe:
      "what trained policies are worth on a team with one member replaced: the newcomer's embedding from its validation responses " +
      'untrained (a), fine-tuned alone (b) or with everything (c), a policy from scratch (d), the old embedding (e); test split, paired tests against (d)',
    load: async () => (await import('./transfer.ts')).transferCommand,
  },
  {
    command: 'export <checkpoint>',
    describe:
      'write a deployable policy.json (weights, architecture, team, encoder id), policy.onnx (a standard ' +
      'ONNX inference model), policy.spec.md (its input contract), golden.json (golden vectors) and the weights in TF.js format',
    load: async () => (await import('./export.ts')).exportCommand,
  },
  {
    command: 'serve',
    describe:
      "serve a simulated cache's simulator as an OpenAI-compatible chat-completions API on 127.0.0.1 (the model name picks the agent), with injected faults",
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  {
    command: 'debate',
    describe: 'run live debates on a team of endpoints (team file), an exported policy choosing what each agent reads; the transcript is written into a cache',
    load: async () => (await import('./debate.ts')).debateCommand,
  },
  {
    command: 'record',
    describe:
      "replay a method or a policy on a split with the record tier: the cache's live endpoint answers every context the cache lacks, each " +
      'reply journaled as it arrives (a rerun asks nothing twice); prints calls, tokens, cost, new contexts and tier shares before and after',
    load: async () => (await import('./record.ts')).recordCommand,
  },
  {
    command: 'active',
    describe:
      "active recording: train a policy, record (through the cache's live endpoint, " +
      'journaled) the contexts it visits that the cache lacks, most visited and most ' +
      "uncertain first within each round's limits, retrain from scratch; per round prints " +
      'the tier-3 share and validation accuracy under miss = model and miss = record',
    load: async () => (await import('./active.ts')).activeCommand,
  },
  {
    command: 'worker',
    describe:
      'take cells of ablation grids from a Redis queue (ablate --queue), train them and return the ' +
      'results; --engine, --threads, --backend apply to cells whose grid settings do not set them',
    load: async () => (await import('./worker.ts')).workerCommand,
  },
  {
    command: 'fidelity',
    describe:
      'run every method under miss = model and under miss = record on a cache whose ' +
      'endpoint answers every context (a simulated cache, or a recorded one with a fitted ' +
      'simulator: cache fit): accuracy and cost under both, the differences with 95% intervals, ' +
      "Kendall's tau of the rankings, and the response model's bias on round-2 contexts",
    load: async () => (await import('./fidelity.ts')).fidelityCommand,
  },
];
