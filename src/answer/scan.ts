// Where a pattern can match, found without running it over a whole text: the quick scans of the
// multiple-choice readings (mcq.ts, settled.ts). Each gives what the pattern it stands for gives
// (tests/answer/scan.test.ts compares them on every kind of break and line end).

/** Whether a UTF-16 code unit is one of JavaScript's `\s`. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));
const ENDS_SENTENCE = new Set([0x2e, 0x21, 0x3f]); // . ! ?

/**
 * What follows the last sentence break, `text.split(/(?<=[.!?])\s+|\n/).pop()`, found from the end:
 * a break is a run of spaces after ".!?" (whole: the pattern is greedy) or a line break, so the
 * last one ends at the last such run of spaces, or just after the last line break of a run that
 * follows no ".!?". The pattern run over the whole text to keep its last piece cost as much as a rule.
 */
export function lastSentenceOf(text: string): string {
  for (let end = text.length; end > 0; ) {
    let e = end;
    while (e > 0 && !isSpace(text.charCodeAt(e - 1))) e--;
    if (e === 0) break;
    let s = e - 1;
    while (s > 0 && isSpace(text.charCodeAt(s - 1))) s--;
    if (s > 0 && ENDS_SENTENCE.has(text.charCodeAt(s - 1))) return text.slice(e);
    const newline = text.lastIndexOf('\n', e - 1);
    if (newline >= s) return text.slice(newline + 1);
    end = s;
  }
  return text;
}

const LEADING = new Set([0x23, 0x3e, 0x2a, 0x2d]); // # > * -
/**
 * `line.replace(/^[\s#>*-]+|[\s*]+$/g, '')`: a line without its leading spaces and marks ("> ",
 * "- ", "**", "#") and its trailing spaces and "*". The pattern tried its second alternative at
 * every space of the line, which took longer than anything else about a reply's last line.
 */
export function bareLine(line: string): string {
  let a = 0;
  while (a < line.length && (isSpace(line.charCodeAt(a)) || LEADING.has(line.charCodeAt(a)))) a++;
  let b = line.length;
  while (b > a && (isSpace(line.charCodeAt(b - 1)) || line.charCodeAt(b - 1) === 0x2a)) b--;
  return line.slice(a, b);
}

const LINE_END = /[\n\r\u2028\u2029]/g;
/**
 * The matches of `sticky` (flag y) at each line start of `text`: what `text.matchAll(/^.../gm)` gives
 * for the same pattern after `^`, where the pattern cannot match a line end (so no match holds a
 * line start but its own). Tried at the line starts alone (a reply is mostly one line), not at
 * every place of the text.
 */
export function lineStartMatches(text: string, sticky: RegExp): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  for (let at = 0; ; ) {
    sticky.lastIndex = at;
    const m = sticky.exec(text);
    if (m) found.push(m);
    LINE_END.lastIndex = at;
    const end = LINE_END.exec(text);
    if (!end) return found;
    at = end.index + 1;
  }
}

/**
 * `[...text.matchAll(global)]` by `exec` on the pattern itself: matchAll copies the pattern and
 * steps an iterator a match, which took longer than the matching on a reply's few hundred
 * characters (about 1.4x, 4x on a cold start). Every match is taken before the caller reads one.
 */
export function allMatches(global: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  global.lastIndex = 0;
  for (let m: RegExpExecArray | null; (m = global.exec(text)); ) {
    found.push(m);
    if (m[0] === '') global.lastIndex++; // as matchAll steps past an empty match
  }
  global.lastIndex = 0;
  return found;
}
