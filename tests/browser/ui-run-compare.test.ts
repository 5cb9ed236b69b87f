// The runs comparison table's latency proxy: the postings a query reads on average, read from each run's stored
// evaluation on the chosen set (documents × avg_flops), its p50 and p99 where the evaluation kept them, and a dash for
// a run not evaluated there; the "Results on" set chooser has a label.
import '../../src/ui/experiments/run-compare.ts';
import type { RunCompare } from '../../src/ui/experiments/run-compare.ts';
import type { PruningPoint, RunRecord, SetEvaluation } from '../../src/worker/api.ts';
import { allInside, cleanup, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

interface Evaluated {
  documents: number;
  avgFlops: number;
  ndcg: number;
  queryPostings?: { mean: number; p50: number; p99: number };
  pruningCurve?: PruningPoint[];
}

function run(id: string, k: number, evaluation: Evaluated | null): RunRecord {
  const evaluations = evaluation
    ? [
        {
          set: { name: 'NanoA', documents: evaluation.documents, queries: 2, judgments: 2, warnings: [] },
          splade: {
            metrics: { ndcg_cut_10: evaluation.ndcg, recip_rank_10: 0.5, recall_1000: 1 },
            efficiency: { query_active_dims: 10, corpus_active_dims: 100, avg_flops: evaluation.avgFlops },
            queryPostings: evaluation.queryPostings,
            pruningCurve: evaluation.pruningCurve,
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
  it('shows each evaluated run’s mean postings per query as documents × avg_flops and its kept p50 / p99, a dash for the others', async () => {
    cleanup();
    const runs = [
      run('a', 1, { documents: 100, avgFlops: 12.345, ndcg: 0.3, queryPostings: { mean: 1234.5, p50: 1100, p99: 4321.4 } }),
      run('b', 8, null),
      run('c', 4, { documents: 100, avgFlops: 2, ndcg: 0.2 }),
    ];
    const el = await mount<RunCompare>('run-compare', { runs });
    const cell = (id: string) =>
      inside(el, `#cmp-table tr[data-run="${id}"] td[data-measure="query_postings"]`).textContent?.trim();
    expect(cell('a'), `run a: ${cell('a')}`).toBe('1,235');
    expect(cell('b'), `run b: ${cell('b')}`).toBe('–');
    const percentiles = (id: string) =>
      inside(el, `#cmp-table tr[data-run="${id}"] td[data-measure="query_postings_p50_p99"]`).textContent?.trim();
    expect(percentiles('a'), `run a: ${percentiles('a')}`).toBe('1,100 / 4,321');
    expect(percentiles('c'), `an evaluation stored before percentiles were kept: ${percentiles('c')}`).toBe('–');
  });

  it('names its set chooser for screen readers ("Results on", axe\'s select-name)', async () => {
    cleanup();
    const el = await mount<RunCompare>('run-compare', { runs: [run('a', 1, { documents: 10, avgFlops: 1, ndcg: 0.3 })] });
    const select = inside<HTMLSelectElement>(el, '#cmp-set');
    expect(select.labels?.[0]?.textContent?.trim(), `its label: ${select.labels?.[0]?.textContent}`).toBe('Results on');
    const none = await mount<RunCompare>('run-compare', { runs: [run('b', 8, null)] });
    expect(none.shadowRoot!.querySelector('#cmp-set'), 'no set to choose: no chooser').toBeNull();
  });

  it("lays out each evaluated run's kept pruning curve: nDCG@10 and postings per query at each point", async () => {
    cleanup();
    const point = (rule: PruningPoint['rule'], ndcg: number, postings: number) =>
      ({ rule, ndcg_cut_10: ndcg, meanQueryPostings: postings, indexBytes: 1536 }) as PruningPoint;
    const curve = [point({ kind: 'all' }, 0.5, 12345), point({ kind: 'top', n: 16 }, 0.45678, 321.4)];
    const runs = [
      run('a', 1, { documents: 100, avgFlops: 1, ndcg: 0.5, pruningCurve: curve }),
      run('c', 4, { documents: 100, avgFlops: 2, ndcg: 0.2 }),
    ];
    const el = await mount<RunCompare>('run-compare', { runs });
    const rows = allInside(el, '#cmp-pruning tbody tr');
    expect(rows, 'only the run whose evaluation kept a curve').toHaveLength(1);
    expect(rows[0].getAttribute('data-run'), 'only the run whose evaluation kept a curve').toBe('a');
    const headers = allInside(el, '#cmp-pruning thead th').map((th) => th.textContent?.trim());
    expect(headers, `run and two points: ${headers}`).toHaveLength(3);
    const cells = [...rows[0].querySelectorAll<HTMLElement>('td[data-rule]')].map((td) =>
      td.innerText.replace(/\s+/g, ' ').trim(),
    );
    expect(cells.join(' | '), cells.join(' | ')).toBe('0.5000 12,345 1.50 KiB | 0.4568 321 1.50 KiB');
  });
});
