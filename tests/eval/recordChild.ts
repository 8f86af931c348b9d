// Child process of the kill -9 test (record.test.ts): `record` on a cache, with the simulator behind
// an endpoint that logs every call it is asked (its idempotency key) before answering, a few
// milliseconds later. Usage: node --import tsx recordChild.ts CACHE_DIR CALL_LOG
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordJob } from '../../eval/recordJob.ts';
import { loadCache } from '../../src/cache/load.ts';
import { simulatorEndpoint } from '../../src/sim/simulator.ts';
import { defaultCompute } from '../../train/config.ts';

const [dir, log] = process.argv.slice(2);
const sim = simulatorEndpoint(loadCache(dir, () => {}));
const out = await recordJob({
  cache: dir, split: 'train', settings: { seed: 0 }, method: 'random', keepRate: 0.6, compute: defaultCompute(), recording: { concurrency: 4 },
  endpoint: {
    name: 'logged simulator',
    respond: async (request) => {
      appendFileSync(log, `${request.idempotencyKey}\n`);
      await sleep(2 + Math.random() * 6);
      return sim.respond(request);
    },
  },
});
console.log(out.text);
