// `cache audit`: the misread audit. Per agent, the responses whose stored answer does not appear in
// the reply's closing sentences (src/answer/closing.ts): where a reader took a value from the middle
// of a reply, or the reply ends on another value, a misread is likely. They are listed with the
// stored answer and the reply's ending, to be checked by eye; many will be fine (an answer stated
// earlier, then comments on other agents), which is why this is a list and not a rule. Beside them,
// per agent, the responses stored with no answer because the stated and the settled readings
// disagreed (src/answer.ts, the rule import and `cache validate` read by): what a reader may recover by eye.
import { questionOptions, type McqOption } from '../answer.ts';
import { CLOSING_SENTENCES, closingSentences, statedInClosing } from '../answer/closing.ts';
import { ending, shownReading } from './parseReport.ts';
import { pct } from '../table.ts';
import type { Cache, Response } from './types.ts';
import { SettingsError } from '../io/errors.ts';
import { runSteps } from '../io/interrupt.ts';

export interface AuditOptions {
  /** Only this agent's responses (an agent id of the cache). */
  agent?: string;
  /** Suspects listed per agent (all are counted). */
  limit: number;
}

export interface AgentAudit {
  agent: string;
  /** Responses with a stored answer, and those whose answer is not in their closing sentences. */
  answered: number;
  suspects: Response[];
  /** Responses refused because the two readings disagreed (stored as no answer). */
  disagreed: Response[];
}

/** The suspects of each agent (or of `agent` alone), in cache order. */
export const auditCache = (cache: Cache, agent?: string): AgentAudit[] => runSteps(auditSteps(cache, agent));

/** Responses a step of auditSteps reads. */
const RESPONSES_A_STEP = 256;

/** `auditCache` as steps (src/io/interrupt.ts): it yields every RESPONSES_A_STEP responses it reads. */
function* auditSteps(cache: Cache, agent?: string): Generator<unknown, AgentAudit[]> {
  const agents = agent === undefined ? cache.agents : cache.agents.filter((a) => a.id === agent);
  if (!agents.length) throw new SettingsError(`--agent: unknown agent '${agent}' (cache ${cache.file} has ${cache.agents.map((a) => a.id).join(', ')})`);
  const options = new Map<number, McqOption[]>();
  const optionsOf = (q: number) => {
    let o = options.get(q);
    if (!o) options.set(q, (o = cache.questions[q].answerType === 'mcq' ? questionOptions(cache.questions[q].text) : []));
    return o;
  };
  const audits: AgentAudit[] = [];
  for (const a of agents) {
    const answered = cache.responses.filter((r) => r.a === a.index && r.answer !== null);
    const suspects: Response[] = [];
    for (const [i, r] of answered.entries()) {
      if (i % RESPONSES_A_STEP === RESPONSES_A_STEP - 1) yield 'misread audit';
      if (!statedInClosing(r.text, r.answer!, cache.questions[r.q].answerType, optionsOf(r.q))) suspects.push(r);
    }
    const disagreed = cache.responses.filter((r) => r.a === a.index && r.disagreement);
    audits.push({ agent: a.id, answered: answered.length, suspects, disagreed });
  }
  return audits;
}

/** The audit as the command prints it: per agent, the count and the first `limit` suspects with their endings. */
export const auditReport = (cache: Cache, o: AuditOptions): string => runSteps(auditReportSteps(cache, o));

/** `auditReport` as steps (src/io/interrupt.ts). */
export function* auditReportSteps(cache: Cache, o: AuditOptions): Generator<unknown, string> {
  const audits = yield* auditSteps(cache, o.agent);
  const out = [
    `Misread audit of ${cache.file}: per agent, the responses whose stored answer is not in the reply's last ` +
      `${CLOSING_SENTENCES} sentences; read them by eye (docs/import.md, "Checking the reads")`,
  ];
  for (const a of audits) {
    out.push('', `${a.agent}: ${a.suspects.length} of ${a.answered} responses with an answer (${pct(a.suspects.length / Math.max(1, a.answered))})`);
    for (const r of a.suspects.slice(0, o.limit))
      out.push(`  ${r.id}: stored '${r.answer!.replace(/\s+/g, ' ')}'; it closes: "${ending(closingSentences(r.text), 240)}"`);
    if (a.suspects.length > o.limit) out.push(`  ... and ${a.suspects.length - o.limit} more (--limit ${a.suspects.length} lists them all)`);
    out.push(`${a.agent}: ${a.disagreed.length} responses stored with no answer because the two readings disagreed (stated | settled)`);
    for (const r of a.disagreed.slice(0, o.limit))
      out.push(`  ${r.id}: ${shownReading(r.disagreement![0])} | ${shownReading(r.disagreement![1])}; it closes: "${ending(closingSentences(r.text), 240)}"`);
    if (a.disagreed.length > o.limit) out.push(`  ... and ${a.disagreed.length - o.limit} more (--limit ${a.disagreed.length} lists them all)`);
  }
  return out.join('\n');
}
