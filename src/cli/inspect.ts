// `splade-lab inspect <model> [--k K] [--json]`: architecture, size, tying and MLM-head norms before/after k.
import { nodeGpuContext } from '../gpu/node-gpu.ts';
import { loadCheckpoint } from '../io/checkpoint.ts';
import { parseModelConfig } from '../model/config.ts';
import { reportModel, type HeadNormSummary, type ModelReport } from '../model/head-report.ts';
import { loadParameters } from '../model/weights.ts';
import { numberOption, parseArgs, type Command } from './command.ts';
import { resolveModelSource } from './model-source.ts';

export const inspectCommand: Command = {
  summary: 'architecture, parameters, vocabulary, tying and MLM-head row norms before/after dividing by k',
  usage:
    'usage: splade-lab inspect <model-folder-or-hub-id> [--k K] [--seed 1] [--json]\n' +
    'Prints the architecture, parameter count, vocabulary, tying and the MLM head row-norm statistics (mean, max, p50,\n' +
    'p99, anisotropy over seeded row pairs) at k = 1 and after dividing the head by k, measured by the GPU kernels.',
  async run(argv) {
    const args = parseArgs(argv, ['k', 'seed'], ['json']);
    const [model] = args.positional;
    if (!model || args.positional.length > 1) throw new Error('usage: splade-lab inspect <model-folder-or-hub-id> [--k K] [--json]');
    const k = numberOption(args, 'k', 1);
    const source = await resolveModelSource(model);
    const checkpoint = await loadCheckpoint(source);
    const config = parseModelConfig(checkpoint.config);
    const params = loadParameters(config, checkpoint.tensors, source.label);
    const ctx = await nodeGpuContext('inspect');
    try {
      const report = await reportModel(ctx, config, params, k, { seed: numberOption(args, 'seed', 1) });
      process.stdout.write(args.options.has('json') ? JSON.stringify(report) + '\n' : formatReport(report));
    } finally {
      ctx.destroy();
    }
    return 0;
  },
};

function formatReport(r: ModelReport): string {
  const row = (label: string, s: HeadNormSummary) =>
    `  ${label.padEnd(8)} mean ${s.meanRowNorm.toFixed(3)}  max ${s.maxRowNorm.toFixed(3)}  p50 ${s.p50.toFixed(3)}  ` +
    `p99 ${s.p99.toFixed(3)}  anisotropy ${s.anisotropy.toFixed(3)}\n`;
  return (
    `${r.architecture}: ${(r.params / 1e6).toFixed(2)}M parameters, ${r.layers} layers, hidden ${r.hidden}, ` +
    `vocabulary ${r.vocabSize}, head ${r.tied ? 'tied to' : 'separate from'} the word embeddings\n` +
    `MLM-head row L2 norms:\n` +
    row('k = 1', r.before) +
    row(`k = ${r.k}`, r.after)
  );
}
