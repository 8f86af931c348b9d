// The shape of a normalized MATH answer (spaces already removed): a set, a bracketed list, a union,
// a matrix or one expression. Normalization prints it canonically (`printMath`); the symbolic
// comparison walks two of them side by side (equivalence.ts).
//   set      a bare list "1,2", "\{1,2\}", or an "or"/"and" list (turned into commas beforehand):
//            order does not matter, so it prints sorted. "x=5,x=9" lists the values 5 and 9.
//   bracket  "(1,4)", "[2,5)", "(-\infty,\frac{1}{2}]": a point or an interval; order and brackets matter.
//   union    pieces joined by "\cup", in the order written.
//   matrix   \begin{pmatrix}...\end{pmatrix} (any matrix environment), cells compared in place.
//   expr     anything else; a plain number prints in canonicalNumber's form.

export type MathNode =
  | { kind: 'expr'; text: string }
  | { kind: 'set'; items: MathNode[] }
  | { kind: 'bracket'; open: string; close: string; items: MathNode[] }
  | { kind: 'union'; items: MathNode[] }
  | { kind: 'matrix'; rows: MathNode[][] };

const OPEN = '([{';
const CLOSE = ')]}';

/** `s` split at each `sep` outside brackets and braces. */
export function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (OPEN.includes(c))
      depth++; // "\{" and "\}" nest like "{" and "}"
    else if (CLOSE.includes(c)) depth--;
    else if (depth === 0 && s.startsWith(sep, i)) {
      parts.push(s.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

/** Whether the bracket opening `s` closes at its last character (so "(1)(2)" is not one bracket). */
function wrapped(s: string): boolean {
  if (!OPEN.slice(0, 2).includes(s[0]) || !CLOSE.slice(0, 2).includes(s[s.length - 1])) return false;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (OPEN.includes(s[i])) depth++;
    else if (CLOSE.includes(s[i]) && --depth === 0) return i === s.length - 1;
  }
  return false;
}

const ASSIGNED = /^[a-zA-Z](?:_\{?\d+\}?)?=(?!=)/;
const MATRIX = /^\\begin\{([pbvBV]?matrix|array)\}(?:\{[lcr|]*\})?(.*)\\end\{\1\}$/;

export function parseMath(s: string): MathNode {
  const union = splitTopLevel(s, '\\cup');
  if (union.length > 1) return { kind: 'union', items: union.map(parseMath) };
  const matrix = s.match(MATRIX);
  if (matrix) {
    // A lone backslash before a number is a row break that lost its other half: MATH's gold answers
    // went through Hendrycks' strip_string, which turns every double backslash into a single one.
    const body = matrix[2].replace(/(?<!\\)\\(?=[-+\d.(])/g, '\\\\');
    return {
      kind: 'matrix',
      rows: splitTopLevel(body, '\\\\')
        .filter(Boolean)
        .map((row) => splitTopLevel(row, '&').map(parseMath)),
    };
  }
  const braces = s.match(/^\\\{(.*)\\\}$/);
  if (braces) return { kind: 'set', items: splitTopLevel(braces[1], ',').map((x) => parseMath(x.replace(ASSIGNED, ''))) };
  if (wrapped(s)) {
    const items = splitTopLevel(s.slice(1, -1), ',');
    if (items.length > 1) return { kind: 'bracket', open: s[0], close: s[s.length - 1], items: items.map(parseMath) };
  }
  const items = splitTopLevel(s, ',');
  if (items.length > 1 && items.every(Boolean)) return { kind: 'set', items: items.map((x) => parseMath(x.replace(ASSIGNED, ''))) };
  return { kind: 'expr', text: s };
}

/** Numeric value of a printed plain number ("3", "-0.5", "7/3"), else NaN: sets print in numeric order. */
function plainValue(s: string): number {
  const m = s.match(/^(-?\d+(?:\.\d+)?)(?:\/(\d+))?$/);
  return m ? Number(m[1]) / Number(m[2] ?? 1) : NaN;
}

/** The canonical string of a node; `leaf` prints an expression (normalization canonicalizes numbers there). */
export function printMath(node: MathNode, leaf: (text: string) => string): string {
  const print = (n: MathNode) => printMath(n, leaf);
  switch (node.kind) {
    case 'expr':
      return leaf(node.text);
    case 'set': {
      const items = node.items.map(print);
      items.sort((a, b) => {
        const [x, y] = [plainValue(a), plainValue(b)];
        if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? (a < b ? -1 : a > b ? 1 : 0) : Number.isNaN(x) ? 1 : -1;
        return x - y;
      });
      return items.join(',');
    }
    case 'bracket':
      return `${node.open}${node.items.map(print).join(',')}${node.close}`;
    case 'union':
      return node.items.map(print).join('\\cup');
    case 'matrix':
      return `\\begin{pmatrix}${node.rows.map((r) => r.map(print).join('&')).join('\\\\')}\\end{pmatrix}`;
  }
}
