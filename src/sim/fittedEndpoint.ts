// The fitted simulator as the live endpoint of the record tier on a recorded cache (src/recording.ts
// attaches it): each request draws an answer from the fitted world (world.ts), deterministic per
// request like the simulator's. A reply reuses the text and token count of the first recorded
// response (or shown solution) stating the drawn answer; an answer no record states (a gold answer
// nobody reached) gets a one-line text. The fit itself: fitted.ts; its file: fitFile.ts.
import seedrandom from 'seedrandom';
import { FIT_FILE } from '../cache/format.ts';
import type { Cache, Question } from '../cache/types.ts';
import { tokenCounter } from '../cache/tokens.ts';
import { isResponse, shownEntryTokens, type Endpoint, type EndpointRequest, type Shown } from '../env/endpoint.ts';
import { requestIds, sameRequest } from '../env/requestKey.ts';
import { drawIndex } from '../shuffle.ts';
import { loadFit, type FittedQuestion, type SimulatorFit } from './fitFile.ts';
import { profileOf } from './fitted.ts';
import { independentAnswer, revisedAnswer, type QuestionLatent, type ShownArgument } from './world.ts';

/** The fitted world as the live endpoint of the record tier (deterministic per request, like the simulator). */
export function fittedEndpoint(cache: Cache, fit: SimulatorFit = loadFit(cache)): Endpoint {
  const profile = profileOf(fit.knobs, fit.skill);
  const count = tokenCounter('cl100k_base');
  const data = new Map<number, { qf: FittedQuestion; optionOf: Map<number, number>; latent: QuestionLatent }>();
  const questionFit = (q: Question) => {
    let d = data.get(q.index);
    if (!d) {
      const qf = fit.questions[q.id];
      const optionOf = new Map<number, number>([[q.goldKey, 0]]);
      qf.options.forEach((opt, o) => {
        if (opt.source === null || opt.answer === null) return;
        const r = cache.responseIndex.get(opt.source);
        const ans = r !== undefined ? cache.responses[r].ans : cache.externals[cache.externalIndex.get(opt.source)!].ans;
        if (ans >= 0) optionOf.set(ans, o);
      });
      data.set(
        q.index,
        (d = {
          qf,
          optionOf,
          latent: { id: q.id, subject: qf.subject, difficulty: qf.difficulty, gold: 0, distractor: qf.distractor, options: qf.options.length },
        }),
      );
    }
    return d;
  };
  const none = (qf: FittedQuestion) => qf.options.length - 1;
  return {
    name: `simulator fitted to the records of cache '${fit.cache}' (${FIT_FILE}, seed ${fit.seed})`,
    respond: async (request: EndpointRequest) => {
      const { question, agent, round, context, prev } = request;
      const { qf, optionOf, latent } = questionFit(question);
      const option = (r: Shown) => optionOf.get(r.ans) ?? none(qf);
      const random = seedrandom(`${fit.seed}|${sameRequest(requestIds(request))}`);
      const wrong = qf.wrong[agent.id] ?? qf.distractor;
      // An external text (recorded protocol) is a peer's, as the fit reads the records' (fitted.ts).
      const shown: ShownArgument[] = context.map((r) => ({ agent: profile, answer: option(r), quality: 0.5, own: isResponse(r) && r.agent === agent.id }));
      const p =
        round === 1 || !prev
          ? independentAnswer(fit.knobs, profile, latent, { offset: qf.offset, wrong })
          : revisedAnswer(fit.knobs, profile, latent, { offset: qf.offset, wrong }, option(prev), shown);
      const o = drawIndex(p, random());
      const { answer, source } = qf.options[o];
      const recorded = sourceOf(cache, source);
      const text = recorded?.text ?? (answer === null ? 'I could not settle on a final answer.' : `The answer is $\\boxed{${answer}}$.`);
      return {
        text,
        answer: recorded ? recorded.answer : answer,
        inTokens: question.promptTokens + context.reduce((s, r) => s + shownEntryTokens(r), 0),
        outTokens: recorded?.tokens ?? count(text),
        meta: { fittedOption: o },
      };
    },
  };
}

/** The recorded response or shown solution whose text a reply reuses. */
function sourceOf(cache: Cache, source: string | null): { text: string; answer: string | null; tokens: number } | undefined {
  if (source === null) return undefined;
  const r = cache.responseIndex.get(source);
  if (r !== undefined) return { text: cache.responses[r].text, answer: cache.responses[r].answer, tokens: cache.responses[r].outTokens };
  const e = cache.externalIndex.get(source);
  return e === undefined ? undefined : { text: cache.externals[e].text, answer: cache.externals[e].answer, tokens: cache.externals[e].tokens };
}
