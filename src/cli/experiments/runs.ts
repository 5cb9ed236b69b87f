// `splade-lab runs <dir>...`: argument adapter over the run records (run.json of each run folder) and runTable: a
// table like the paper's Table 2 on a chosen set, the best run marked with the rule that picked it. Ids, names and
// statuses come from files: each cell is printed with its control characters escaped.
import { BEST_RULE, evaluatedSets, runTable } from '../../contract/experiments/run-compare.ts';
import { nodePlatform } from '../../app/platform/platform-node.ts';
import type { RunRecord } from '../../contract/experiments/runs.ts';
import type { TrainingRecipe } from '../../contract/training/recipe.ts';
import { printable } from '../../util/printable.ts';
import type { Command } from '../command.ts';

function cell(value: number | undefined, digits = 4): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

/** How a run's queries are made: encoded by the model, or an inference-free run's static table, frozen or trained. */
function queriesOf(recipe: TrainingRecipe): 'encoded' | 'static' | 'trained' {
  return recipe.inferenceFree ? (recipe.inferenceFree.trained ? 'trained' : 'static') : 'encoded';
}

/** The weight on the queries: lambda_q, a trained table's L1 weight, or null (a frozen table has none). */
function queryWeightOf(recipe: TrainingRecipe): number | null {
  return recipe.inferenceFree ? (recipe.inferenceFree.trained?.l1 ?? null) : recipe.lambdaQueries;
}

export const runsCommand: Command = {
  spec: {
    name: 'runs',
    summary: "compare run folders (of train or sweep) as the paper's Table 2: k, divided norm, measures, sparsity, FLOPS, steps",
    positionals: [
      {
        name: 'run-folder',
        help: "run folders (each holds run.json); a sweep folder's runs are its sub-folders",
        variadic: true,
      },
    ],
    options: {
      set: { value: 'name', help: 'the evaluation set to compare on (default: the first one any run was evaluated on)' },
      json: { help: 'print the rows as JSON' },
    },
  },
  async run(args) {
    const runs: RunRecord[] = [];
    for (const folder of args.positionals) {
      const record = await nodePlatform.runs.get(folder);
      if (!record) throw new Error(`${folder} holds no run.json: is it a run folder of splade-lab train or sweep?`);
      runs.push(record);
    }
    const set = args.string('set') ?? evaluatedSets(runs)[0] ?? '';
    const rows = runTable(runs, set);
    if (args.flag('json')) {
      process.stdout.write(
        JSON.stringify({
          set,
          rule: BEST_RULE,
          rows: rows.map((r) => ({
            run: r.run.id,
            k: r.run.k,
            lambdaQueries: queryWeightOf(r.run.recipe),
            queries: queriesOf(r.run.recipe),
            loss: r.run.recipe.loss ?? 'contrastive',
            lambdaDocuments: r.run.recipe.lambdaDocuments,
            dividedNorm: r.dividedNorm,
            steps: r.run.step,
            status: r.run.status,
            best: r.best,
            ...(r.evaluation ? { ...r.evaluation.splade.metrics, efficiency: r.evaluation.splade.efficiency } : {}),
          })),
        }) + '\n',
      );
      return 0;
    }
    const header = [
      'run',
      'k',
      'norm/k',
      'queries',
      'lambda_q',
      'lambda_d',
      'nDCG@10',
      'MRR@10',
      'R@1000',
      'active q',
      'active d',
      'avg_flops',
      'steps',
      'status',
    ];
    const body = rows.map((r) => {
      const m = r.evaluation?.splade.metrics;
      const e = r.evaluation?.splade.efficiency;
      return [
        `${r.best ? '* ' : ''}${r.run.id}`,
        String(r.run.k),
        cell(r.dividedNorm ?? undefined, 3),
        r.run.recipe.inferenceFree ? (r.run.recipe.inferenceFree.trained ? 'idf-trained' : 'idf') : 'model',
        r.run.recipe.inferenceFree
          ? r.run.recipe.inferenceFree.trained
            ? `L1 ${queryWeightOf(r.run.recipe)}`
            : '-'
          : String(r.run.recipe.lambdaQueries),
        String(r.run.recipe.lambdaDocuments),
        cell(m?.ndcg_cut_10),
        cell(m?.recip_rank_10),
        cell(m?.recall_1000),
        cell(e?.query_active_dims, 1),
        cell(e?.corpus_active_dims, 1),
        cell(e?.avg_flops, 2),
        String(r.run.step),
        r.run.status,
      ].map((c) => printable(c));
    });
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    process.stdout.write(
      [
        set ? `on ${printable(set)}` : 'no run was evaluated yet (sweep with --beir or --nanobeir)',
        line(header),
        ...body.map(line),
        rows.some((r) => r.best) ? `* ${BEST_RULE}` : '',
        rows.some((r) => r.run.recipe.inferenceFree)
          ? 'queries idf: an inference-free run (its queries are their tokens weighted by a static table; lambda_q unused; idf-trained: the table trained, with an L1 of that weight on its query vectors)'
          : '',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
    return 0;
  },
};
