// Whether two normalized MATH answers are the same mathematics, when their strings differ:
// `\frac{\sqrt{2}}{2}` and `\frac{1}{\sqrt{2}}`, `x+1` and `1+x`, `\frac{9\pi}{2}` and `4.5\pi`,
// `(-\infty,\frac{\sqrt3}{3}]` and `(-\infty,\frac{1}{\sqrt3}]`, `5,9` and `9,5`.
// Both answers are split into their shape (structure.ts: sets match in any order, points, intervals
// and matrices element by element); two expressions that differ as strings are compared by
// @cortex-js/compute-engine, which parses LaTeX, by value: at three points for the unknowns (equal
// within 1e-9 wherever both are finite); what is not a number (a boolean, a tuple) by the engine's
// `isEqual`. Equations compare side by side. Plain numbers never need the engine (normalization
// already made equal numbers equal strings), nor do words ("odd", "Monday").
// Each comparison that needed the engine is counted, so reports can say how often it decided.
import type { ComputeEngine } from '@cortex-js/compute-engine';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { canonicalNumber } from './normalize.ts';
import { parseMath, splitTopLevel, type MathNode } from './structure.ts';

/** Comparisons that needed the symbolic path, and how many of them found the two answers equal. */
export interface SymbolicCounts {
  comparisons: number;
  equal: number;
}

export const emptySymbolicCounts = (): SymbolicCounts => ({ comparisons: 0, equal: 0 });

type BoxedExpression = ReturnType<ComputeEngine['parse']>;

let engine: ComputeEngine | undefined;
/**
 * The engine, loaded at the first comparison that needs it rather than with every cache: as
 * synchronously as sameMath runs, by require() of its ES module build (Node 20.19 and later).
 */
function newEngine(): ComputeEngine {
  const entry = fileURLToPath(import.meta.resolve('@cortex-js/compute-engine'));
  return new (createRequire(import.meta.url)(entry) as typeof import('@cortex-js/compute-engine')).ComputeEngine();
}
const parsed = new Map<string, BoxedExpression | null>();
const decided = new Map<string, boolean>();

/**
 * Run engine code with console.error muted: the engine logs (and then survives) its own failures to
 * canonicalize some inputs, e.g. "DC" read as a derivative; such an input simply compares unequal.
 */
function quietly<T>(run: () => T): T {
  const log = console.error;
  console.error = () => {};
  try {
    return run();
  } finally {
    console.error = log;
  }
}

/** The engine's reading of one expression; null when it cannot parse it. */
function expression(text: string): BoxedExpression | null {
  let e = parsed.get(text);
  if (e === undefined) {
    engine ??= newEngine();
    try {
      const boxed = engine.parse(text);
      e = boxed.isValid ? boxed : null;
    } catch {
      e = null;
    }
    parsed.set(text, e);
  }
  return e;
}

// Unknowns are evaluated at three points, each unknown at its own value (a function of its name,
// so "x+1" and "y+1" differ and each expression's values can be cached on their own).
const POINTS = 3;
function unknownValue(name: string, k: number): number {
  let h = 2166136261 ^ k;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const magnitude = 0.5 + (h % 7919) / 1000; // 0.5 .. 8.4, away from the small integers where forms coincide
  return k === 1 ? -magnitude : magnitude;
}

const values = new Map<string, ([number, number] | null)[] | null>();

/** An expression's numeric value at each point, as [re, im] (null where not finite); null when not a number at all. */
function valuesOf(text: string, e: BoxedExpression): ([number, number] | null)[] | null {
  let v = values.get(text);
  if (v === undefined) {
    v = [];
    for (let k = 0; k < POINTS; k++) {
      const point = Object.fromEntries(e.unknowns.map((u: string) => [u, unknownValue(u, k)]));
      const n = (e.unknowns.length ? e.subs(point) : e).N();
      if (!n.isNumberLiteral) {
        v = null;
        break;
      }
      v.push(Number.isFinite(n.re) && Number.isFinite(n.im) ? [n.re, n.im] : null);
    }
    values.set(text, v);
  }
  return v;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Two expressions the engine parses are equal when their values agree (within 1e-9) at every point
 * where both are finite, and there are at least two such points; expressions that are not numbers
 * (tuples, sets, booleans) are compared by the engine's own `isEqual`.
 */
function symbolicEqual(a: string, b: string): boolean {
  const x = expression(a),
    y = expression(b);
  if (!x || !y) return false;
  try {
    const [vx, vy] = [valuesOf(a, x), valuesOf(b, y)];
    if (!vx || !vy) return x.isEqual(y) === true;
    let compared = 0;
    for (let k = 0; k < POINTS; k++) {
      const [p, q] = [vx[k], vy[k]];
      if (!p || !q) {
        if (p !== q) return false; // finite for one, not for the other
        continue;
      }
      if (!close(p[0], q[0]) || !close(p[1], q[1])) return false;
      compared++;
    }
    return compared >= 2;
  } catch {
    return false;
  }
}

// Words are compared as strings: a run of three letters outside a LaTeX command is a word.
const isWordy = (s: string) => /[a-zA-Z]{3,}/.test(s.replace(/\\[a-zA-Z]+/g, ' '));

function sameExpression(a: string, b: string, counts: SymbolicCounts): boolean {
  if (a === b) return true;
  // Equations ("y=2x+3", "a+b+n=27") compare side by side.
  const [sa, sb] = [splitTopLevel(a, '='), splitTopLevel(b, '=')];
  if (sa.length > 1 || sb.length > 1) return sa.length === sb.length && sa.every((side, i) => sameExpression(side, sb[i], counts));
  const [na, nb] = [canonicalNumber(a), canonicalNumber(b)];
  if (na !== null && nb !== null) return na === nb;
  if (isWordy(a) || isWordy(b)) return false;
  counts.comparisons++;
  const key = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  let same = decided.get(key);
  if (same === undefined) decided.set(key, (same = quietly(() => symbolicEqual(a, b))));
  if (same) counts.equal++;
  return same;
}

/** Whether each item of `xs` pairs with its own equal item of `ys` (order free). */
function sameItems(xs: MathNode[], ys: MathNode[], counts: SymbolicCounts): boolean {
  if (xs.length !== ys.length) return false;
  const used = new Array<boolean>(ys.length).fill(false);
  return xs.every((x) => {
    const j = ys.findIndex((y, k) => !used[k] && sameNode(x, y, counts));
    if (j >= 0) used[j] = true;
    return j >= 0;
  });
}

function sameNode(x: MathNode, y: MathNode, counts: SymbolicCounts): boolean {
  if (x.kind === 'expr' && y.kind === 'expr') return sameExpression(x.text, y.text, counts);
  if (x.kind === 'set' && y.kind === 'set') return sameItems(x.items, y.items, counts);
  if (x.kind === 'union' && y.kind === 'union') return sameItems(x.items, y.items, counts);
  if (x.kind === 'bracket' && y.kind === 'bracket')
    return x.open === y.open && x.close === y.close && x.items.length === y.items.length && x.items.every((item, i) => sameNode(item, y.items[i], counts));
  if (x.kind === 'matrix' && y.kind === 'matrix')
    return (
      x.rows.length === y.rows.length &&
      x.rows.every((row, i) => row.length === y.rows[i].length && row.every((cell, j) => sameNode(cell, y.rows[i][j], counts)))
    );
  return false;
}

/** Whether two normalized MATH answers are equal as mathematics (see the header); counts engine comparisons. */
export function sameMath(a: string, b: string, counts: SymbolicCounts = emptySymbolicCounts()): boolean {
  return a === b || sameNode(parseMath(a), parseMath(b), counts);
}

/**
 * The value of an arithmetic expression of numbers ("12\\times7" is 84), computed by the engine,
 * as a plain number: an exact integer (below 2^53) or a decimal of at most six places; null for anything else.
 */
export function arithmeticValue(text: string): string | null {
  return quietly(() => {
    const e = expression(text);
    const v = e && !e.unknowns.length ? valuesOf(text, e) : null;
    const n = v?.[0];
    if (n?.[1] !== 0 || Math.abs(n[0]) >= 2 ** 53) return null; // beyond exact integers: no value
    const rounded = Number(n[0].toFixed(6));
    return Math.abs(rounded - n[0]) <= 1e-9 * Math.max(1, Math.abs(n[0])) ? String(rounded) : null;
  });
}
