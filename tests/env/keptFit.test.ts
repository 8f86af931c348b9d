import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCache } from '../../src/cache/load.ts';
import { makeEnvironment } from '../../src/env/environment.ts';
import { FITS_FILE } from '../../src/env/keptFit.ts';
import { fitResponseModel } from '../../src/env/responseModelFit.ts';
import { generateCache } from '../../src/sim/generate.ts';

const settings = { responseModel: 'full', priorSmoothing: 0.5 } as const;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cpp-keptfit-'));
  await generateCache(join(dir, 'c'), { questions: 40 }, 'keptfit');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tier-3 model of a fresh load's environment (each load a new cache: nothing shared in memory). */
const modelOfFreshLoad = () =>
  makeEnvironment(
    loadCache(join(dir, 'c'), () => {}),
    { miss: 'model' },
  ).responseModel;
const fitsFile = () => join(dir, 'c', FITS_FILE);

describe("the response model's fit kept beside the cache", () => {
  it('is written by the first fit and taken by the next process: the same model to the last bit', () => {
    const first = modelOfFreshLoad();
    expect(existsSync(fitsFile())).toBe(true);
    const fresh = fitResponseModel(
      loadCache(join(dir, 'c'), () => {}),
      settings,
    );
    expect(first).toEqual(fresh);
    expect(modelOfFreshLoad()).toEqual(fresh);
  });

  it('is taken only while cache.jsonl is as it was: after a change it is fitted again, said, and kept anew', () => {
    const kept = JSON.parse(readFileSync(fitsFile(), 'utf8'));
    const key = Object.keys(kept)[0];
    // Weights no fit makes, bound to the cache as it is: taken.
    kept[key].fits = kept[key].fits.map((f: { weights: number[] }) => ({ ...f, weights: f.weights.map(() => 0.125) }));
    writeFileSync(fitsFile(), JSON.stringify(kept));
    expect(modelOfFreshLoad().fits[0].weights.every((w) => w === 0.125)).toBe(true);
    // The same entry once cache.jsonl has changed (a blank line appended: the same records): not taken.
    appendFileSync(join(dir, 'c', 'cache.jsonl'), '\n');
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const model = modelOfFreshLoad();
      expect(model.fits[0].weights.every((w) => w === 0.125)).toBe(false);
      expect(model).toEqual(
        fitResponseModel(
          loadCache(join(dir, 'c'), () => {}),
          settings,
        ),
      );
      expect(said.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(
        /fits\.json: the response model's fit \(full, prior smoothing 0\.5\) was made from another .*cache\.jsonl: fitted again/,
      );
    } finally {
      said.mockRestore();
    }
    expect(modelOfFreshLoad().fits[0].weights.every((w) => w === 0.125)).toBe(false);
  });
});
