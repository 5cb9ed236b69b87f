// `splade-lab inspect <model>`: argument adapter over inspectModel: architecture, size, tying and MLM-head row norms
// before and after dividing by k.
import { inspectModel, type HeadNormSummary, type ModelReport } from '../../app/model/head-report.ts';
import { openWeightsRef } from '../../app/model/open-model.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import type { Command } from '../command.ts';

function formatReport(r: ModelReport): string {
  const row = (label: string, s: HeadNormSummary) =>
    `  ${label.padEnd(8)} mean ${s.meanRowNorm.toFixed(3)}  max ${s.maxRowNorm.toFixed(3)}  p50 ${s.p50.toFixed(3)}  ` +
    `p99 ${s.p99.toFixed(3)}  anisotropy ${s.anisotropy.toFixed(3)}\n`;
  return (
    `${r.architecture}: ${(r.params / 1e6).toFixed(2)}M parameters, ${r.layers} layers, hidden ${r.hidden}, ` +
    (r.embeddingSize !== r.hidden ? `embeddings and head rows ${r.embeddingSize}, ` : '') +
    `vocabulary ${r.vocabSize}, head ${r.tied ? 'tied to' : 'separate from'} the word embeddings\n` +
    `encoding: ${r.encoding}\n` +
    r.notes.map((note) => `note: ${note}\n`).join('') +
    `MLM-head row L2 norms:\n` +
    row('k = 1', r.before) +
    row(`k = ${r.k}`, r.after)
  );
}

export const inspectCommand: Command = {
  spec: {
    name: 'inspect',
    summary: 'architecture, parameters, vocabulary, tying and MLM-head row norms before/after dividing by k',
    positionals: [{ name: 'model', help: 'a Hugging Face model folder or a Hub id' }],
    options: {
      k: { value: 'K', help: 'divisor of the head to report beside k = 1', default: '1' },
      seed: { value: 'S', help: 'seed of the row pairs sampled for anisotropy', default: '1' },
      json: { help: 'print one JSON object' },
    },
    notes: 'Norm statistics (mean, max, p50, p99, anisotropy over seeded row pairs) are measured by the GPU kernels.',
  },
  async run(args) {
    const k = args.numberOrDefault('k');
    const ref = await modelRefFromArgument(args.positional(0)!);
    const ctx = await nodePlatform.acquireGpu('inspect');
    let report: ModelReport;
    try {
      report = await inspectModel(ctx, await openWeightsRef(nodePlatform, ref, { limits: ctx.limits }), k, {
        seed: args.numberOrDefault('seed'),
      });
    } finally {
      ctx.destroy();
    }
    process.stdout.write(args.flag('json') ? JSON.stringify(report) + '\n' : formatReport(report));
    return 0;
  },
};
