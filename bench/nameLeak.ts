// What a simulated reply's text says about who wrote it (docs/results.md, "Team-general policy"): a
// revision names the agents whose answers it was shown ("sage argued for (C) and I agree"), so the
// text of a candidate identifies its author by elimination, an identity a policy without per-seat
// inputs can still read through the text encoder. Measured on a generated world (default: the
// default world), revisions (round >= 2) of the train split against the test split:
//   - the share of revisions that name another agent, and of those that name every other member;
//   - the author read back by elimination (the one member a revision that names all the others
//     does not name);
//   - the author read back from the text's embedding alone (nearest centroid per agent, cosine), for
//     the texts as generated, with every agent name replaced by "another agent", and for round-1
//     texts (which name no one): what the encoder's vector carries of the names, and of style.
//   npx tsx bench/nameLeak.ts [--questions N] [--encoder bof|use]
import type { CacheLine, QuestionRecord, ResponseRecord } from '../src/cache/format.ts';
import { type EncoderName, makeEncoder } from '../src/encoders/index.ts';
import { generateWorld } from '../src/sim/generate.ts';

const args = process.argv.slice(2);
const after = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const questions = Number(after('--questions') ?? 1200);
const encoder = await makeEncoder((after('--encoder') ?? 'bof') as EncoderName);

const lines: CacheLine[] = [...generateWorld({ questions })];
const split = new Map(lines.filter((l): l is QuestionRecord => l.type === 'question').map((q) => [q.id, q.split]));
const agents = lines.filter((l) => l.type === 'agent').map((l) => l.id);
const responses = lines.filter((l): l is ResponseRecord => l.type === 'response');
const named = (text: string) => agents.filter((a) => text.includes(`${a} argued for`));
const anonymous = (text: string) => agents.reduce((t, a) => t.split(`${a} argued for`).join('another agent argued for'), text);

const revisions = responses.filter((r) => r.round >= 2);
const naming = revisions.filter((r) => named(r.text).length > 0);
const allOthers = revisions.filter((r) => named(r.text).length === agents.length - 1);
const byElimination = allOthers.filter((r) => agents.filter((a) => !named(r.text).includes(a))[0] === r.agent);
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
console.log(`${questions} questions, ${agents.length} agents (${agents.join(', ')}), ${revisions.length} revisions; encoder ${encoder.id}`);
console.log(`revisions naming another agent: ${pct(naming.length, revisions.length)}; naming every other member: ${pct(allOthers.length, revisions.length)}`);
console.log(`author read by elimination, of those naming every other member: ${pct(byElimination.length, allOthers.length)}`);

const normalized = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
/** Accuracy of the nearest agent centroid (cosine) on the test split, trained on the train split. */
async function authorAccuracy(set: ResponseRecord[], textOf: (r: ResponseRecord) => string): Promise<string> {
  const train = set.filter((r) => split.get(r.question) === 'train');
  const test = set.filter((r) => split.get(r.question) === 'test');
  const embed = async (rs: ResponseRecord[]) => (await encoder.encode(rs.map(textOf))).map(normalized);
  const [trainVectors, testVectors] = [await embed(train), await embed(test)];
  const centroids = agents.map((a) => {
    const c = new Float64Array(encoder.dim);
    train.forEach((r, k) => {
      if (r.agent === a) for (let d = 0; d < c.length; d++) c[d] += trainVectors[k][d];
    });
    return normalized(Float32Array.from(c));
  });
  const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, d) => s + v * y[d], 0);
  const right = test.filter((r, k) => {
    const scores = centroids.map((c) => dot(c, testVectors[k]));
    return agents[scores.indexOf(Math.max(...scores))] === r.agent;
  }).length;
  return `${pct(right, test.length)} of ${test.length} (chance ${pct(1, agents.length)})`;
}
console.log(`author from the embedding, revisions as generated: ${await authorAccuracy(revisions, (r) => r.text)}`);
console.log(`author from the embedding, revisions with the names replaced: ${await authorAccuracy(revisions, (r) => anonymous(r.text))}`);
console.log(
  `author from the embedding, round-1 replies (no names): ${await authorAccuracy(
    responses.filter((r) => r.round === 1),
    (r) => r.text,
  )}`,
);
