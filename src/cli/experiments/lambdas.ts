// `splade-lab lambdas`: argument adapter over convertLambdas: carries lambda_q / lambda_d from one trainer's
// convention to another's, saying each factor and what cannot be converted; --explain prints every convention.
import {
  CONVENTION_FACTS,
  LAMBDA_CONVENTIONS,
  convertLambdas,
  type ConventionSetup,
  type LambdaConvention,
} from '../../contract/experiments/lambda-conventions.ts';
import { readRunRecordFile } from '../../app/platform/run-store-node.ts';
import { UsageError, type Args, type Command } from '../command.ts';

function setupFrom(args: Args, side: 'from' | 'to'): ConventionSetup {
  const convention = args.required(side) as LambdaConvention;
  if (!LAMBDA_CONVENTIONS.includes(convention))
    throw new UsageError(`--${side} must be one of ${LAMBDA_CONVENTIONS.join(', ')}, got "${convention}"`);
  const loss = args.required(`${side}-loss`);
  if (loss !== 'contrastive' && loss !== 'distillation')
    throw new UsageError(`--${side}-loss must be contrastive or distillation, got "${loss}"`);
  return {
    convention,
    batchPerDevice: args.numberOrDefault(`${side}-batch`),
    devices: args.numberOrDefault(`${side}-devices`),
    negatives: args.numberOrDefault(`${side}-negatives`),
    ranking: loss,
  };
}

/** The last report of a run's record, as the two sides' batch statistics. */
async function measuredFrom(path: string) {
  const instead = "Give --measured a run folder's run.json (splade-lab train writes one)";
  const record = await readRunRecordFile(path, { what: '--measured', instead });
  if (!record) throw new Error(`--measured ${path}: no such file. ${instead}`);
  const r = record.reports.at(-1);
  if (!r || r.squaredNormQueries === undefined)
    throw new Error(`${path} has no report with batch statistics (runs from this version on have them)`);
  const B = record.recipe.batchSize;
  return {
    queries: { flops: r.flopsQueries, meanSquaredNorm: r.squaredNormQueries, rows: B },
    documents: { flops: r.flopsDocuments, meanSquaredNorm: r.squaredNormDocuments, rows: 2 * B },
  };
}

export const lambdasCommand: Command = {
  spec: {
    name: 'lambdas',
    summary: "carry lambda_q / lambda_d between splade-lab's, sentence-transformers', naver/splade's and tevatron's conventions",
    options: {
      from: {
        value: 'convention',
        help: `where the values come from: ${LAMBDA_CONVENTIONS.join(', ')}`,
        default: 'sentence-transformers',
      },
      to: { value: 'convention', help: 'where they go', default: 'splade-lab' },
      'lambda-q': { value: 'L', help: 'the source lambda_q (query_regularizer_weight, q_flops_loss_factor)', default: '5e-5' },
      'lambda-d': { value: 'L', help: 'the source lambda_d (document_regularizer_weight, p_flops_loss_factor)', default: '3e-5' },
      'from-batch': { value: 'B', help: 'source triplets per device', default: '16' },
      'from-devices': { value: 'N', help: 'source GPUs', default: '1' },
      'from-negatives': { value: 'N', help: 'source negatives per query', default: '1' },
      'from-loss': { value: 'kind', help: 'the source ranking loss: contrastive or distillation', default: 'contrastive' },
      'to-batch': { value: 'B', help: 'target triplets per device', default: '8' },
      'to-devices': { value: 'N', help: 'target GPUs', default: '1' },
      'to-negatives': { value: 'N', help: 'target negatives per query', default: '1' },
      'to-loss': { value: 'kind', help: 'the target ranking loss', default: 'contrastive' },
      measured: {
        value: 'run.json',
        help: "a splade-lab run's record: its last batch sizes the FLOPS change between batch shapes",
      },
      explain: { help: "print every convention's loss, FLOPS rows, typical values and sources" },
      json: { help: 'print the conversion as JSON' },
    },
  },
  async run(args) {
    if (args.flag('explain')) {
      for (const id of LAMBDA_CONVENTIONS) {
        const f = CONVENTION_FACTS[id];
        process.stdout.write(
          `${id}: ${f.name}\n  loss: ${f.loss}\n  FLOPS rows: ${f.flopsRows}\n  typical: ${f.typical}\n  source: ${f.source}\n`,
        );
      }
      return 0;
    }
    const measuredPath = args.string('measured');
    const conversion = convertLambdas({
      from: setupFrom(args, 'from'),
      to: setupFrom(args, 'to'),
      lambdaQueries: args.numberOrDefault('lambda-q'),
      lambdaDocuments: args.numberOrDefault('lambda-d'),
      measured: measuredPath ? await measuredFrom(measuredPath) : undefined,
    });
    if (args.flag('json')) {
      process.stdout.write(`${JSON.stringify(conversion)}\n`);
    } else {
      const c = conversion;
      process.stdout.write(
        [
          c.convertible
            ? `lambda_q ${c.lambdaQueries.toPrecision(4)}  lambda_d ${c.lambdaDocuments.toPrecision(4)}`
            : 'no formula carries these values (see below)',
          ...c.steps.map((s) => `  - ${s}`),
          ...c.caveats.map((s) => `  ! ${s}`),
        ].join('\n') + '\n',
      );
    }
    return conversion.convertible ? 0 : 4;
  },
};
