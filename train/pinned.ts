// A keep rate pinned at 0 or 1 is a collapsed policy: No-communication or Full-Debate in all but name.
// Once the keep probabilities saturate, p (1 - p) ~ 0 silences both the policy gradient and the
// entropy bonus, so the run does not come back on its own (docs/results.md, "What training achieves
// on the default world"). The trainer says so once, with the likely cause and the setting to change.
import { kebab } from '../src/io/problems.ts';
import { TrainConfig } from './config.ts';

/** Within this of 0 or 1 ... */
const EDGE = 0.01;
/** ... for this many steps in a row: pinned, not a step's noise. */
const STEPS = 5;

const flag = (k: keyof TrainConfig) => `--${kebab(k)}`;
const builtIn = (k: keyof TrainConfig) => JSON.stringify(TrainConfig.shape[k].parse(undefined));

/** Why a keep rate pinned at `at` (0 or 1) under `c`, and which settings to change. */
export function pinnedWarning(c: TrainConfig, at: 0 | 1, step: number): string {
  const optimizer =
    `lr ${c.lr} against entropyBonus ${c.entropyBonus}${c.normalizeAdvantages ? '' : ' without normalized advantages'}: ` +
    `Adam's first steps move every keep logit the same way and the entropy bonus is too weak to hold it; ` +
    `lower ${flag('lr')} (built-in ${builtIn('lr')}) or raise ${flag('entropyBonus')} (built-in ${builtIn('entropyBonus')}, ` +
    `with ${flag('normalizeAdvantages')})`;
  const pressure = [
    c.k < 0 && `k ${c.k} (${flag('k')})`,
    c.lambda > 0 && `lambda ${c.lambda} (${flag('lambda')})`,
    c.costWeight > 0 && `costWeight ${c.costWeight} (${flag('costWeight')})`,
    c.targetCost !== null && `targetCost ${c.targetCost} (${flag('targetCost')})`,
  ].filter(Boolean);
  const cause =
    at === 0 && pressure.length
      ? `the prune pressure of ${pressure.join(', ')} outweighs what keeping earns: weaken it; or the ${optimizer}`
      : `the ${optimizer}`;
  return (
    `warning: the keep rate has been ${at === 1 ? 'at 1 (every edge kept: Full-Debate)' : 'at 0 (no edge kept: No-communication)'} ` +
    `for ${STEPS} steps (to step ${step}); a saturated policy rarely recovers. Likely cause: ${cause} ` +
    `(docs/training.md#a-keep-rate-pinned-at-0-or-1)`
  );
}

/** Watches the keep rate of each step and says `pinnedWarning` once, the first time it pins. */
export function keepRateWatch(c: TrainConfig, say: (line: string) => void): (keepRate: number, step: number) => void {
  let run = 0;
  let side: 0 | 1 | undefined;
  let warned = false;
  return (keepRate, step) => {
    const at = keepRate >= 1 - EDGE ? 1 : keepRate <= EDGE ? 0 : undefined;
    run = at !== undefined && at === side ? run + 1 : at === undefined ? 0 : 1;
    side = at;
    if (!warned && side !== undefined && run >= STEPS) {
      warned = true;
      say(pinnedWarning(c, side, step));
    }
  };
}
