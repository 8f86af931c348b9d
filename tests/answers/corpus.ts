// The answer-reading corpus: varied responses with the answer a careful reader takes from each
// (null: the response states none). tests/answerCorpus.test.ts reads every entry through
// extractAnswer + normalizeAnswer (MATH: compared with sameMath) and lists each mismatch.
// Hand-written for this project (no recorded data is copied here); modelled on the ways GPT-3.5/4,
// Claude, Llama and Mistral state answers in debate transcripts (Du et al., DyLAN, MMLU logs).
import type { AnswerType } from '../../src/answer.ts';

export interface CorpusEntry {
  type: AnswerType;
  text: string;
  /** The answer it states, as a reader writes it ("C", "559", "\\frac{1}{2}"), or null. */
  answer: string | null;
  /** mcq: the question whose options the response may cite by text (key of QUESTIONS). */
  question?: keyof typeof QUESTIONS;
  /** What the entry exercises. */
  note: string;
}

/** Questions whose options responses cite by text, in the layouts debate code bases use. */
export const QUESTIONS = {
  // Du et al. / DyLAN MMLU: options inline after the question, then the instruction.
  capital: 'Can you answer the following question as accurately as possible? Which city is the capital of Australia?: A) Sydney, B) Melbourne, C) Canberra, D) Perth Explain your answer, putting the answer in the form (X) at the end of your response.',
  // One option a line, "(A) ..." markers.
  organelle: 'Which organelle produces most of the ATP in a eukaryotic cell?\n(A) Ribosome\n(B) Mitochondrion\n(C) Golgi apparatus\n(D) Nucleus\nAnswer:',
  // "A. ..." markers; one option's text lies inside another's.
  pressure: 'What happens to the boiling point of water at high altitude?\nA. It rises\nB. It falls\nC. It falls sharply\nD. It stays the same',
  // Ten options (MMLU-Pro), so that I and J are letters too.
  primes: 'How many primes are there below 20? A) 4 B) 5 C) 6 D) 7 E) 8 F) 9 G) 10 H) 11 I) 12 J) 13',
} as const;
