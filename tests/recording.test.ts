// openEnvironment (src/recording.ts), the environment of every command: which recording a replay
// gets from its miss and recording options, and the one refusal of endpoints nothing would ask.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCache } from '../src/cache/load.ts';
import { closeRecording, openEnvironment } from '../src/recording.ts';
import { countingSimulator, sparseWorld } from './fixtures/sparseWorld.ts';

const quiet = () => {};

describe('openEnvironment', () => {
  const dir = sparseWorld(4);

  it('attaches nothing below miss = record, and refuses a team file there', () => {
    const cache = loadCache(dir, quiet);
    expect(openEnvironment(cache, { miss: 'model' }).recording).toBeUndefined();
    expect(() => openEnvironment(cache, { miss: 'signature' }, { endpoints: 'team.json' })).toThrow(
      'setting endpoints (team.json): the record tier asks them only with miss = record, and miss is signature',
    );
  });

  it("with miss = record: the cache's endpoint, journaled in its folder; in memory with journal: false; one recording shared", () => {
    const cache = loadCache(dir, quiet);
    const journaled = openEnvironment(cache, { miss: 'record' }, { concurrency: 3 });
    expect(journaled.recording!.endpoint.name).toMatch(/simulator/);
    expect(journaled.recording!.journal!.file).toBe(join(dir, 'journal.jsonl'));
    expect(journaled.recording!.concurrency).toBe(3);
    const shared = openEnvironment(cache, { miss: 'record', round1Sample: 'random' }, { shared: journaled.recording });
    expect(shared.recording).toBe(journaled.recording);
    closeRecording(journaled.recording!);

    const endpoint = countingSimulator(dir);
    const memory = openEnvironment(loadCache(dir, quiet), { miss: 'record' }, { endpoint, journal: false, limits: { maxCalls: 1 } });
    expect(memory.recording!.endpoint).toBe(endpoint);
    expect(memory.recording!.journal).toBeUndefined();
    expect(memory.recording!.limits).toEqual({}); // a replay kept in memory is not capped
  });
});
