// Float64 twin of SpladeObjective, composed from the kernels' references: loss parts and every gradient.
import { contrastiveLossBackward, contrastiveLossForward } from '../../kernels/reference/contrastive-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../kernels/reference/sparse-scores.ts';
import { spladeHeadBackward, spladeHeadForward } from '../../kernels/reference/splade-head.ts';
import type { SpladeObjectiveDims } from './splade-objective.ts';

export interface ObjectiveReferenceInputs {
  hiddenQueries: ArrayLike<number>;
  maskQueries: ArrayLike<number>;
  hiddenDocuments: ArrayLike<number>;
  maskDocuments: ArrayLike<number>;
  weight: ArrayLike<number>;
  bias: ArrayLike<number>;
}

export interface ObjectiveReferenceResult {
  rank: number;
  flopsQueries: number;
  flopsDocuments: number;
  /** rank + λq · flopsQueries + λd · flopsDocuments */
  total: number;
  dweight: Float64Array;
  dbias: Float64Array;
  dhiddenQueries: Float64Array;
  dhiddenDocuments: Float64Array;
  /** The pooled vectors, (B, V) and (2B, V). */
  pooledQueries: Float64Array;
  pooledDocuments: Float64Array;
}

export function spladeObjectiveReference(
  inputs: ObjectiveReferenceInputs,
  dims: SpladeObjectiveDims,
  tau: number,
  lambdaQueries: number,
  lambdaDocuments: number,
): ObjectiveReferenceResult {
  const { B, Tq, Td, d, V } = dims;
  const N = 2 * B;
  const common = { weight: inputs.weight, bias: inputs.bias };
  const queryInputs = { ...common, hidden: inputs.hiddenQueries, mask: inputs.maskQueries };
  const docInputs = { ...common, hidden: inputs.hiddenDocuments, mask: inputs.maskDocuments };
  const queryDims = { B, T: Tq, d, V };
  const docDims = { B: N, T: Td, d, V };
  const q = spladeHeadForward(queryInputs, queryDims);
  const docs = spladeHeadForward(docInputs, docDims);
  const scores = sparseScoresForward(q.pooled, docs.pooled, B, N, V);
  const rank = contrastiveLossForward(scores, B, N, tau);
  const flopsQueries = flopsLossForward(q.pooled, B, V);
  const flopsDocuments = flopsLossForward(docs.pooled, N, V);
  const dscores = contrastiveLossBackward(scores, B, N, tau);
  const { dqueries, ddocs } = sparseScoresBackward(q.pooled, docs.pooled, dscores, B, N, V);
  const fq = flopsLossBackward(q.pooled, B, V, lambdaQueries);
  const fd = flopsLossBackward(docs.pooled, N, V, lambdaDocuments);
  for (let i = 0; i < dqueries.length; i++) dqueries[i] += fq[i];
  for (let i = 0; i < ddocs.length; i++) ddocs[i] += fd[i];
  const gq = spladeHeadBackward(queryInputs, q, dqueries, queryDims);
  const gd = spladeHeadBackward(docInputs, docs, ddocs, docDims);
  return {
    rank,
    flopsQueries,
    flopsDocuments,
    total: rank + lambdaQueries * flopsQueries + lambdaDocuments * flopsDocuments,
    dweight: gq.dweight.map((g, i) => g + gd.dweight[i]),
    dbias: gq.dbias.map((g, i) => g + gd.dbias[i]),
    dhiddenQueries: gq.dhidden,
    dhiddenDocuments: gd.dhidden,
    pooledQueries: Float64Array.from(q.pooled),
    pooledDocuments: Float64Array.from(docs.pooled),
  };
}
