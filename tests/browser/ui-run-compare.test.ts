// The runs comparison table's latency proxy: the postings a query reads on average, read from each run's stored
// evaluation on the chosen set (documents × avg_flops), and a dash for a run not evaluated there.
import '../../src/ui/experiments/run-compare.ts';
import type { RunCompare } from '../../src/ui/experiments/run-compare.ts';
import type { RunRecord, SetEvaluation } from '../../src/worker/api.ts';
import { check, cleanup, inside, mount } from './ui-fixture.ts';

function run(id: string, k: number, evaluation: { documents: number; avgFlops: number; ndcg: number } | null): RunRecord {
  const evaluations = evaluation
    ? [
        {
          set: { name: 'NanoA', documents: evaluation.documents, queries: 2, judgments: 2, warnings: [] },
          splade: {
            metrics: { ndcg_cut_10: evaluation.ndcg, recip_rank_10: 0.5, recall_1000: 1 },
            efficiency: { query_active_dims: 10, corpus_active_dims: 100, avg_flops: evaluation.avgFlops },
          },
        } as unknown as SetEvaluation,
      ]
    : [];
  return {
    id,
    k,
    model: { meanRowNorm: 2.5 },
    recipe: { lambdaQueries: 0.1, lambdaDocuments: 0.1 },
    reports: [],
    step: 10,
    trainingMs: 1000,
    evaluations,
  } as unknown as RunRecord;
}

describe('<run-compare>', () => {
  it('shows each evaluated run’s mean postings per query as documents × avg_flops, a dash for the others', async () => {
    cleanup();
    const runs = [run('a', 1, { documents: 100, avgFlops: 12.345, ndcg: 0.3 }), run('b', 8, null)];
    const el = await mount<RunCompare>('run-compare', { runs });
    const cell = (id: string) =>
      inside(el, `#cmp-table tr[data-run="${id}"] td[data-measure="query_postings"]`).textContent?.trim();
    check(cell('a') === '1,235', `run a: ${cell('a')}`);
    check(cell('b') === '–', `run b: ${cell('b')}`);
  });
});
