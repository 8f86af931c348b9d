// Where each decision of a debate sits in the per-debate arrays (a rollout's batch, rewards, returns,
// advantages) for each setting of `decisions` (model.ts). Per round t >= 2, in the order they are
// made: the stop decision (with stop), each recipient's revise decision (with revise), then the
// edges, recipient-major as src/env/actions.ts numbers them. With edges alone this is that
// numbering exactly. Every slot is there in every debate; a decision not made (the edges of a
// recipient that keeps its answer, every decision after a stop) is absent: it has no reward, no
// probability, and no gradient (Rollout.present).
import { actionIndex, actionsPerRound, candidateOrder } from '../env/actions.ts';
import { KIND, type Decisions } from './model.ts';

/** One slot: its kind (KIND), round, recipient (stop: -1) and candidate position (revise, stop: -1). */
export interface DecisionSlot {
  kind: number;
  t: number;
  i: number;
  j: number;
}

export interface DecisionLayout {
  agents: number;
  rounds: number;
  stop: boolean;
  revise: boolean;
  /** Slots of one debate. */
  perDebate: number;
  edge(t: number, i: number, j: number): number;
  reviseAt(t: number, i: number): number;
  stopAt(t: number): number;
  slot(x: number): DecisionSlot;
}

export function decisionLayout(agents: number, rounds: number, decisions: Decisions): DecisionLayout {
  const stop = decisions === 'edges+revise+stop';
  const revise = decisions !== 'edges';
  const lead = (stop ? 1 : 0) + (revise ? agents : 0); // slots before a round's edges
  const perRound = lead + actionsPerRound(agents);
  const start = (t: number) => (t - 2) * perRound;
  const slots: DecisionSlot[] = [];
  for (let t = 2; t <= rounds; t++) {
    if (stop) slots.push({ kind: KIND.stop, t, i: -1, j: -1 });
    if (revise) for (let i = 0; i < agents; i++) slots.push({ kind: KIND.revise, t, i, j: -1 });
    for (let i = 0; i < agents; i++) for (let j = 0; j < agents; j++) slots.push({ kind: KIND.edge, t, i, j });
  }
  return {
    agents,
    rounds,
    stop,
    revise,
    perDebate: (rounds - 1) * perRound,
    edge: (t, i, j) => start(t) + lead + actionIndex(agents, 2, i, j),
    reviseAt: (t, i) => start(t) + (stop ? 1 : 0) + i,
    stopAt: (t) => start(t),
    slot: (x) => slots[x],
  };
}

/** The team position whose answer a slot's decision reads: an edge its candidate's source, a revise its recipient (stop: -1). */
export const sourceOf = (l: DecisionLayout, s: DecisionSlot) => (s.kind === KIND.edge ? candidateOrder(l.agents, s.i)[s.j] : s.i);
