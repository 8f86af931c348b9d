// The figures of a bench run beside their goals: each section says a figure's verdict where it
// prints it (`beside`), which also keeps the figure with the load average of that moment; at the
// end `goalTable` prints them all as one Markdown table, ready to paste into docs/bench.md.
import { cpus, loadavg } from 'node:os';

export interface Goal {
  limit: number;
  /** true: the figure must be at most `limit`; false: at least. */
  atMost: boolean;
}

interface Figure {
  label: string;
  value: number;
  unit: string;
  goal?: Goal;
  /** 1-minute load average when the figure was taken. */
  load: number;
  note: string;
}

const figures: Figure[] = [];

const digits = (unit: string) => (unit === 's' || unit === 'x' ? 2 : unit === 'min' ? 1 : 0);
const show = (x: number, unit: string) =>
  `${x.toLocaleString('en-US', { minimumFractionDigits: digits(unit), maximumFractionDigits: digits(unit) })}${unit === 'x' || unit === '%' ? '' : ' '}${unit}`;

/** `goal <= 2.5 s -> met`, or what it is missed by (in the figure's unit and as a share of the goal). */
export function verdict(value: number, unit: string, goal: Goal): string {
  const met = goal.atMost ? value <= goal.limit : value >= goal.limit;
  const by = Math.abs(value - goal.limit);
  const missed = unit === '%' ? `${by.toFixed(0)} points` : `${show(by, unit)}, ${((100 * by) / goal.limit).toFixed(0)}%`;
  return `goal ${goal.atMost ? '<=' : '>='} ${show(goal.limit, unit)} -> ${met ? 'met' : `NOT met (missed by ${missed})`}`;
}

/** Keeps a figure for the closing table and returns its verdict (empty without a goal). */
export function beside(label: string, value: number, unit: string, goal?: Goal, note = ''): string {
  figures.push({ label, value, unit, goal, load: loadavg()[0], note });
  return goal ? verdict(value, unit, goal) : '';
}

/** Every figure kept so far as a Markdown table, headed by the date, the machine and the load. */
export function goalTable(): string {
  const cpu = cpus();
  const rows = figures.map(
    (f) =>
      `| ${f.label} | ${show(f.value, f.unit)} | ${f.goal ? verdict(f.value, f.unit, f.goal).replace(/^goal /, '') : '-'} | ${f.load.toFixed(1)} | ${f.note} |`,
  );
  return [
    `Figures beside their goals (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `${cpu[0].model}, ${cpu.length} cores, Node ${process.version}):`,
    '',
    '| figure | measured | goal | load (1 min) | note |',
    '| --- | ---: | --- | ---: | --- |',
    ...rows,
  ].join('\n');
}

export const hasFigures = () => figures.length > 0;
