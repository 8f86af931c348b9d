// `serve`: the simulator of a simulated cache as a local OpenAI-compatible server on 127.0.0.1,
// with fault injection (src/endpoints/simServer.ts). Runs until interrupted; then prints its counts.
import { loadCache } from '../../src/cache/load.ts';
import { serveSimulator } from '../../src/endpoints/simServer.ts';
import { ensureDefaultCache } from '../../src/sim/generate.ts';
import { cacheOption, refuseUnused } from '../options.ts';
import { SettingsError } from '../../src/io/errors.ts';
import { shellWords } from '../../src/io/commandLine.ts';
import { continueWith, onInterrupt, untilStopped } from '../../src/io/interrupt.ts';
import { hideBin } from 'yargs/helpers';
import { command } from './command.ts';

const rate = (describe: string) => ({ type: 'number' as const, default: 0, describe });

const counts = (s: Awaited<ReturnType<typeof serveSimulator>>['stats']) =>
  `${s.attempts} requests: ${s.paid} paid, ${s.replayed} replayed for a known ` +
  `Idempotency-Key, ${s.rateLimited} rate-limited, ${s.serverErrors} server errors, ` +
  `${s.dropped} dropped, ${s.malformed} malformed, ${s.rejected} rejected; ${s.resolvedByKey} ` +
  `prompts with shared texts read by their Idempotency-Key, ${s.ambiguous} left ambiguous`;

export const serveCommand = command(
  (y) =>
    cacheOption(y)
      .option('port', { type: 'number', default: 8000, describe: 'port on 127.0.0.1 (0: a free one)' })
      .option('key-env', { type: 'string', describe: 'environment variable holding the API key clients must send (default: no key checked)' })
      .option('rate-429', rate('share of requests answered 429 (rate limited), with Retry-After'))
      .option('retry-after', { type: 'number', default: 1, describe: 'seconds the 429 replies ask to wait (decimals allowed)' })
      .option('rate-500', rate('share of requests answered 500'))
      .option('rate-drop', rate('share of processed requests whose connection is dropped before the reply'))
      .option('rate-malformed', rate('share of processed requests answered with a truncated JSON body'))
      .option('latency-ms', { type: 'number', default: 0, describe: 'milliseconds added before each reply' })
      .option('seed', { type: 'number', default: 0, describe: 'seed of the fault draws' }),
  async (a) => {
    refuseUnused(a, [['retry-after', a.rate429 === 0, 'sets the wait the 429 replies ask for, and --rate-429 is 0']]);
    let key: string | undefined;
    if (a.keyEnv !== undefined) {
      key = process.env[a.keyEnv];
      if (!key) throw new SettingsError(`--key-env: environment variable ${a.keyEnv} is not set`);
    }
    for (const [flag, value] of [
      ['rate-429', a.rate429],
      ['rate-500', a.rate500],
      ['rate-drop', a.rateDrop],
      ['rate-malformed', a.rateMalformed],
    ] as const)
      if (!(value >= 0 && value <= 1)) throw new SettingsError(`--${flag}: ${value} is not a share between 0 and 1`);
    ensureDefaultCache(a.cache);
    const cache = loadCache(a.cache);
    const server = await serveSimulator(cache, {
      port: a.port,
      key,
      rate429: a.rate429,
      retryAfterS: a.retryAfter,
      rate500: a.rate500,
      rateDrop: a.rateDrop,
      rateMalformed: a.rateMalformed,
      latencyMs: a.latencyMs,
      seed: a.seed,
    });
    console.log(
      `serving the simulator of ${cache.file} at ${server.url} (models: ` +
        `${cache.agents.map((x) => x.id).join(', ')}${key ? `; key from ${a.keyEnv}` : ''}); Ctrl-C stops`,
    );
    // Ctrl-C (or SIGTERM) is how it ends (src/io/interrupt.ts): the server closes, then its counts are printed.
    onInterrupt({ finish: () => server.close(), say: () => [counts(server.stats)] });
    continueWith(() => `to serve again: npx cpp-workbench ${shellWords(hideBin(process.argv))}`);
    await untilStopped();
  },
);
