// The documentation stays true to the repository: every relative link of README.md, docs/*.md and
// the folders' READMEs resolves (file, and heading where it names one); every `npx cpp-workbench`
// line names a real command (and `cache` subcommand) and only flags that command declares; every
// `npm run X` names a script of package.json; and every path of the code the docs cite in
// backquotes exists. The commands and their flags come from the command list itself
// (cli/commands/index.ts), built against a fresh yargs instance by cli/usage.ts: no handler runs.
// And the docs, the code's comments, test titles and command names are reference: none cites an
// issue number or speaks of the work that wrote it ("this session", "the first attempt").
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../cli/commands/index.ts';
import { commandSpecs } from '../cli/usage.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** The documentation checked: the start page, docs/, and the READMEs of folders a user opens. */
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'cache/README.md',
  'checkpoints/README.md',
  'tests/fixtures/dylan-math/README.md',
];

// ---- Markdown: prose (code spans kept apart) and fenced code blocks --------------------------

interface Parsed {
  /** Prose lines outside fenced code, with their line numbers. */
  prose: { line: number; text: string }[];
  /** Lines inside fenced code blocks. */
  code: { line: number; text: string }[];
}

function parse(text: string): Parsed {
  const prose: Parsed['prose'] = [];
  const code: Parsed['code'] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (m && (fence === undefined || m[1].startsWith(fence))) {
      fence = fence === undefined ? m[1] : undefined;
      return;
    }
    (fence === undefined ? prose : code).push({ line: i + 1, text: raw });
  });
  return { prose, code };
}

/** Inline code spans of a prose line. */
const codeSpans = (line: string): string[] => [...line.matchAll(/(`+)(.+?)\1/g)].map((m) => m[2].trim());

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text: line } of parse(text).prose) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Links and images of the prose (outside code spans): [text](target). */
function links(text: string): { line: number; target: string }[] {
  return parse(text).prose.flatMap(({ line, text: l }) =>
    [...l.replace(/(`+).+?\1/g, '').matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ line, target: m[1] })),
  );
}

// ---- The command line, as declared -----------------------------------------------------------

const CLI = await commandSpecs(commands);

// ---- Command lines in the docs ---------------------------------------------------------------

/** Shell words of a line up to its first operator or comment (quotes removed; usage brackets dropped). */
function words(line: string): string[] {
  const out: string[] = [];
  let word = '';
  let quote: string | undefined;
  const flush = () => {
    if (word) out.push(word);
    word = '';
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (/\s/.test(c)) flush();
    else if (c === '#' && word === '') break;
    else if (c === '>' && word.startsWith('<'))
      word += c; // a placeholder, <dir>
    else if ((c === '&' || c === ';' || c === '>' || (c === '|' && /\s/.test(line[i + 1] ?? ' ') && /\s/.test(line[i - 1] ?? ' '))) && !word.startsWith('-'))
      break;
    else word += c;
  }
  flush();
  return out;
}

/** The problems of one `npx cpp-workbench ...` line (empty when it parses against the command line). */
function checkCommandLine(line: string): string[] {
  const w = words(line.replace(/^\s*\$\s+/, ''))
    .slice(2)
    .map((x) => x.replace(/^[[(]+|[\])]+$/g, ''))
    .filter((x) => x !== '' && x !== '|');
  const problems: string[] = [];
  const first = w.findIndex((x) => !x.startsWith('-'));
  const name = first === 0 ? w[0] : undefined;
  if (name === undefined || /^<.*>$|^\.\.\.$/.test(name)) {
    for (const flag of w.filter((x) => x.startsWith('--'))) if (!['--help', '--version'].includes(flag)) problems.push(`${flag}: not a flag of the program`);
    return problems;
  }
  let spec = CLI.get(name);
  if (!spec) return [`no command ${name}`];
  let rest = w.slice(1);
  if (spec.subcommands.size > 0 && rest[0] && !rest[0].startsWith('-')) {
    const sub = spec.subcommands.get(rest[0]);
    if (!sub) return [`no command ${name} ${rest[0]}`];
    spec = sub;
    rest = rest.slice(1);
  }
  for (const x of rest) {
    if (!x.startsWith('-') || x === '-' || x.includes('<') || x === '--') continue;
    const flag = x
      .replace(/^-+/, '')
      .split('=')[0]
      .replace(/[.,]+$/, '');
    if (spec.flags.has(flag)) continue;
    const negated = /^no-(.+)$/.exec(flag)?.[1];
    if (negated && spec.booleans.has(negated)) continue;
    problems.push(`--${flag}: not a flag of ${name}${spec === CLI.get(name) ? '' : ` ${w[1]}`}`);
  }
  return problems;
}

/** `npx cpp-workbench ...` lines: in code blocks (continued with a trailing backslash) and in code spans. */
function commandLines(text: string): { line: number; text: string }[] {
  const { prose, code } = parse(text);
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < code.length; i++) {
    if (!/^\s*(\$\s+)?npx cpp-workbench\b/.test(code[i].text)) continue;
    let joined = code[i].text;
    for (let j = i; /\\\s*$/.test(code[j].text) && j + 1 < code.length; j++) joined = joined.replace(/\\\s*$/, ' ') + code[j + 1].text;
    out.push({ line: code[i].line, text: joined });
  }
  for (const { line, text: l } of prose) for (const span of codeSpans(l)) if (/^npx cpp-workbench\b/.test(span)) out.push({ line, text: span });
  return out;
}

/** Scripts named by `npm run X` in code blocks and code spans. */
function npmRuns(text: string): { line: number; script: string }[] {
  const { prose, code } = parse(text);
  const lines = [...code, ...prose.flatMap(({ line, text: l }) => codeSpans(l).map((s) => ({ line, text: s })))];
  return lines.flatMap(({ line, text: l }) => [...l.matchAll(/\bnpm run ([\w:-]+)/g)].map((m) => ({ line, script: m[1] })));
}

/**
 * Paths of the code cited in code spans (`src/env/tiers.ts`, `train/configs/`, ...): files with an
 * extension and folders with a trailing slash; generated folders (cache/, checkpoints/, results/) aside.
 */
const CODE_DIRS = /^(src|train|eval|jobs|cli|tests|bench|reliability|docs|bin|\.ci)\//;
function citedPaths(text: string): { line: number; path: string }[] {
  return parse(text).prose.flatMap(({ line, text: l }) =>
    codeSpans(l)
      .filter((s) => CODE_DIRS.test(s) && /^[\w./-]+$/.test(s) && !s.includes('...') && /(\.\w+|\/)$/.test(s))
      .map((path) => ({ line, path: path.replace(/[.,:]$/, '') })),
  );
}

// ---- Process words: what a reference page, comment or command name does not say ---------------

/** Each pattern with what it cites. Case-insensitive but `TODO`. */
const PROCESS_WORDS: [RegExp, string][] = [
  [/\b(issues?|tickets?|bugs?) ?(#|no\. ?)?\d+/i, 'an issue number'],
  [/\btickets?\b/i, 'a ticket'],
  [/\bitem \d+ of\b|"done when"/i, 'a part of a ticket'],
  [/\bthis (session|issue|branch|ticket)\b|\bthe issue'?s\b/i, 'the work that wrote it'],
  [/\bfirst attempt\b|\bwas fixed\b|\bfixed since\b/i, 'how the work went'],
  [/\bnot (yet )?rerun\b|\bnot yet run\b|\bdevice machine\b/i, 'what the work could not do'],
  [/\bTODO\b|\bFIXME\b/, 'a note to self'],
];

/** `file:line: phrase (what it cites)` for each process word of a text. */
function processWords(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) =>
    PROCESS_WORDS.flatMap(([re, what]) => {
      const m = re.exec(line);
      return m ? [`${file}:${i + 1}: "${m[0]}" (${what})`] : [];
    }),
  );
}

/** The code whose comments, test titles and command names are read: every source file but this one, and package.json. */
const SOURCE_DIRS = ['src', 'train', 'eval', 'jobs', 'cli', 'bench', 'reliability', 'tests', 'bin', '.ci'];
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mjs|js|cjs)$|^run$/.test(e.name) && path !== 'tests/docs.test.ts' ? [path] : [];
  });
}
const SOURCES = [...SOURCE_DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap(sourceFiles), 'package.json'];

// ---- The checks ------------------------------------------------------------------------------

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the documentation', () => {
  it('is found: the start page and the docs pages', () => {
    expect(DOCS).toContain('docs/method.md');
    for (const f of DOCS) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });

  it('the command line is read from its declarations', () => {
    expect([...CLI.keys()]).toEqual(expect.arrayContaining(['main', 'train', 'eval', 'cache', 'worker']));
    expect([...CLI.get('cache')!.subcommands.keys()]).toEqual([
      'gen',
      'validate',
      'stats',
      'audit',
      'embed',
      'import',
      'from-parquet',
      'to-parquet',
      'compact',
      'fit',
    ]);
    expect(CLI.get('train')!.flags).toContain('epochs');
    expect(CLI.get('train')!.booleans).toContain('round-feature');
    expect(checkCommandLine('npx cpp-workbench train --epochs 3 --no-round-feature --config F')).toEqual([]);
    expect(checkCommandLine('$ npx cpp-workbench cache import --format du <files> --out DIR --model M [--peer-marker RE]')).toEqual([]);
    expect(checkCommandLine('npx cpp-workbench train --learning-rate 0.1')).toEqual(['--learning-rate: not a flag of train']);
    expect(checkCommandLine('npx cpp-workbench cache gen --no-such-flag')).toEqual(['--no-such-flag: not a flag of cache gen']);
    expect(checkCommandLine('npx cpp-workbench cache frobnicate DIR')).toEqual(['no command cache frobnicate']);
    expect(checkCommandLine('npx cpp-workbench trian')).toEqual(['no command trian']);
    expect(checkCommandLine('npx cpp-workbench serve --rate-429 0.2 & # in the background')).toEqual([]);
  });

  it('a process word is found wherever it stands, and only there', () => {
    expect(processWords('x.md', 'Measured at 4dd99ab.\nSince issue 24 the defaults train.')).toEqual(['x.md:2: "issue 24" (an issue number)']);
    expect(processWords('x.ts', '// the goals of Issue #37')).toEqual(['x.ts:1: "Issue #37" (an issue number)']);
    expect(processWords('x.ts', "GROUPS = { issue25: ['load'] }")).toEqual(['x.ts:1: "issue25" (an issue number)']);
    expect(processWords('x.md', 'item 5 of the list')).toEqual(['x.md:1: "item 5 of" (a part of a ticket)']);
    expect(processWords('x.md', 'The first attempt stopped at the evaluation.')).toHaveLength(1);
    expect(processWords('x.md', 'no device machine was lent to this session')).toHaveLength(2);
    expect(processWords('x.ts', '// TODO: later')).toHaveLength(1);
    expect(processWords('x.ts', "zod's issue list; a todo list of contexts; the debug 3 flag; retries after the first request")).toEqual([]);
    expect(SOURCES).toEqual(expect.arrayContaining(['src/cache/load.ts', 'bench/bench.ts', 'tests/train/presets.test.ts', 'package.json']));
  });

  it("the README's commands table has a row for every command and cache subcommand, and for nothing else", () => {
    const text = read('README.md');
    const table = text.slice(text.indexOf('## Commands'), text.indexOf('\n## ', text.indexOf('## Commands') + 1));
    const rows = [...table.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]);
    const declared = [...CLI].flatMap(([name, spec]) => (spec.subcommands.size ? [...spec.subcommands.keys()].map((sub) => `${name} ${sub}`) : [name]));
    expect(rows.length).toBeGreaterThan(20);
    expect([...rows].sort()).toEqual([...declared].sort());
  });

  it.each(DOCS)('%s: cites no issue and speaks of no work session (a reference page)', (file) => {
    expect(processWords(file, read(file))).toEqual([]);
  });

  it('the code: no comment, test title, command or script name cites an issue or a work session', () => {
    expect(SOURCES.flatMap((file) => processWords(file, read(file)))).toEqual([]);
  });

  it('the code cites sections of the docs by headings that exist (docs/X.md, "Heading")', () => {
    const headings = (doc: string) => parse(read(doc)).prose.flatMap(({ text }) => /^#{1,6}\s+(.*?)\s*$/.exec(text)?.[1] ?? []);
    const problems = SOURCES.flatMap((file) =>
      [...read(file).matchAll(/docs\/([\w-]+\.md),? "([^"\n]+)/g)].flatMap(([, doc, cited]) => {
        // A citation may break across a line or a string: its text up to there starts a heading.
        const start = cited.replace(/[`'\s+]+$/, '');
        if (!existsSync(join(ROOT, 'docs', doc))) return [`${file}: docs/${doc}: no such page`];
        return headings(`docs/${doc}`).some((h) => h.startsWith(start)) ? [] : [`${file}: docs/${doc} has no heading "${start}"`];
      }),
    );
    expect(problems).toEqual([]);
  });

  it.each(DOCS)('%s: every relative link resolves', (file) => {
    const broken: string[] = [];
    for (const { line, target } of links(read(file))) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#');
      const to = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (!existsSync(to)) {
        broken.push(`${file}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor && statSync(to).isFile() && to.endsWith('.md') && !anchors(readFileSync(to, 'utf8')).has(anchor))
        broken.push(`${file}:${line}: ${target}: no heading #${anchor} in ${relative(ROOT, to)}`);
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s: every npx cpp-workbench line parses against the command line', (file) => {
    const problems = commandLines(read(file)).flatMap(({ line, text }) => checkCommandLine(text).map((p) => `${file}:${line}: ${p}`));
    expect(problems).toEqual([]);
  });

  it.each(DOCS)('%s: every npm run names a script, every cited path of the code exists', (file) => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const text = read(file);
    const problems = [
      ...npmRuns(text)
        .filter(({ script }) => !scripts.includes(script))
        .map(({ line, script }) => `${file}:${line}: npm run ${script}: no such script`),
      ...citedPaths(text)
        .filter(({ path }) => !existsSync(join(ROOT, path)))
        .map(({ line, path }) => `${file}:${line}: ${path}: no such file`),
    ];
    expect(problems).toEqual([]);
  });
});
