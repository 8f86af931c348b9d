// The nearest name to a typo (cli/usage.ts): a swap of two letters is one edit, and a name too far
// from every real one gets no suggestion.
import { describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands/index.ts';
import { commandSpecs, editDistance, nearest } from '../../cli/usage.ts';

describe('did you mean', () => {
  it('counts edits, a swap of neighbours as one', () => {
    expect(editDistance('epochs', 'epochs')).toBe(0);
    expect(editDistance('trian', 'train')).toBe(1);
    expect(editDistance('ephocs', 'epochs')).toBe(2);
    expect(editDistance('seed', 'seeds')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it("suggests a flag of the command's own, near enough to be a typo", () => {
    const train = commandSpecs(commands).get('train')!.flags;
    expect(nearest('ephocs', train)).toBe('epochs');
    expect(nearest('batchsize', train)).toBe('batch-size');
    expect(nearest('entropy-bonsu', train)).toBe('entropy-bonus');
    expect(nearest('learning-rate', train)).toBeUndefined();
    expect(nearest('zz', train)).toBeUndefined();
  });
});
