// Markdown tables with padded columns: readable on a terminal and pasteable into notes.
export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const width = header.map((_, c) => Math.max(3, ...cells.map((r) => (r[c] ?? '').length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => /^[-+]?[\d.,]+%?$|^-$/.test(String(r[c] ?? ''))));
  const line = (r: string[]) => `| ${r.map((x, c) => (numeric[c] ? x.padStart(width[c]) : x.padEnd(width[c]))).join(' | ')} |`;
  const rule = `|${width.map((w, c) => (numeric[c] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

export const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
