// `splade-lab export-onnx --model <dir> --out model.onnx | --st-folder <dir>`: argument adapter over exportOnnx: the
// SPLADE model (head divided by k) as one ONNX file, pooled or as logits, written atomically (or into a saved folder).
import {
  ONNX_OUTPUT_KINDS,
  TOKEN_TYPE_INPUT_KINDS,
  type OnnxOutputKind,
  type TokenTypeInputKind,
  exportOnnx,
} from '../../app/model/export-onnx.ts';
import { checkStOnnxTarget, ST_ONNX_FILE, stOnnxTarget } from '../../app/model/st-onnx-folder-node.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import { printable } from '../../util/printable.ts';
import { type Args, type Command, UsageError } from '../command.ts';

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

function oneOf<T extends string>(args: Args, name: string, allowed: readonly T[]): T | undefined {
  const value = args.string(name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

export const exportOnnxCommand: Command = {
  spec: {
    name: 'export-onnx',
    summary:
      'write the SPLADE model (head divided by k) as an ONNX file: input_ids, attention_mask, token_type_ids -> sparse vector or logits',
    options: {
      model: {
        value: 'dir-or-hub-id',
        help: 'a SPLADE or MLM model folder, or a Hub id (default with --st-folder: that folder)',
      },
      out: { value: 'model.onnx', help: 'the ONNX file to write (or give --st-folder)' },
      'st-folder': {
        value: 'dir',
        help:
          `a saved sentence-transformers SparseEncoder folder: write the logits graph as ${ST_ONNX_FILE} in its MLM module's ` +
          'folder (the root, or a Router\'s document_0_MLMTransformer/), where backend="onnx" loads it',
      },
      output: {
        value: 'sparse|logits',
        help:
          'sparse: the pooled (batch, vocabulary) vector `sparse_vector`; logits: the (batch, sequence, vocabulary) MLM logits ' +
          "`logits` that Vespa's splade embedder and sentence-transformers' ONNX backend pool themselves (default: sparse; " +
          'logits with --st-folder)',
      },
      'token-type-ids': {
        value: 'optional|required',
        help:
          "optional: token_type_ids defaults to 0 when not fed (onnxruntime's Python/C API take it either way; its " +
          'JavaScript and Java APIs cannot feed it); required: a plain input (Vespa feeds it always). Default: optional ' +
          'for sparse, required for logits',
      },
      k: {
        value: 'K',
        help: 'divide the MLM head by k (a folder saved by a run is divided already: k applies on top)',
        default: '1',
      },
      opset: { value: 'N', help: 'ONNX opset of the default domain (17 to 21)', default: '17' },
    },
    notes:
      "Inputs input_ids, attention_mask and token_type_ids (int64, batch x sequence, both axes dynamic): a tokenizer's " +
      'output feeds as it is. Token type ids are gathered from the token-type embeddings where the family has two or more ' +
      '(BERT, ALBERT), as transformers does; other families take and ignore them. Output sparse_vector (float32, batch x ' +
      'vocabulary): the max over real tokens of log(1 + ReLU(logits)); or, with --output logits, logits (float32, batch x ' +
      'sequence x vocabulary), unmasked, as AutoModelForMaskedLM returns them. A tied vocabulary matrix is stored once, ' +
      'read by the embeddings and (transposed) by the decoder, and k enters as a scalar 1/k the graph multiplies by. ' +
      'Every family splade-lab loads: BERT, DistilBERT, RoBERTa, ModernBERT, GTE, ALBERT. --st-folder follows ' +
      'sentence-transformers v6.0.0 (backend/utils.py: <module>/model.onnx, then <module>/onnx/model.onnx).',
  },
  async run(args) {
    const stFolder = args.string('st-folder');
    const out = args.string('out');
    if ((stFolder === undefined) === (out === undefined)) throw new UsageError('give one of --out and --st-folder');
    const output: OnnxOutputKind = oneOf(args, 'output', ONNX_OUTPUT_KINDS) ?? (stFolder ? 'logits' : 'sparse');
    if (stFolder && output !== 'logits')
      throw new UsageError('--st-folder writes the logits graph (sentence-transformers pools the logits itself); drop --output');
    const tokenTypeIds = oneOf<TokenTypeInputKind>(args, 'token-type-ids', TOKEN_TYPE_INPUT_KINDS);
    const modelArgument = args.string('model') ?? stFolder;
    if (modelArgument === undefined) throw new UsageError('--model is required (or give --st-folder)');
    const placement = stFolder ? await stOnnxTarget(stFolder) : null;
    const target = placement ? placement.target : out!;
    if (placement) await checkStOnnxTarget(target, [placement.mlmFolder, modelArgument]);
    else await checkOutputPath(target, '--out', inputsOf(args, 'model'));
    const started = performance.now();
    const ref = await modelRefFromArgument(modelArgument);
    const result = await exportOnnx(nodePlatform, ref, {
      k: args.numberOrDefault('k'),
      opset: args.numberOrDefault('opset'),
      output,
      ...(tokenTypeIds ? { tokenTypeIds } : {}),
    });
    for (const note of [...result.notes, ...(placement?.notes ?? [])]) process.stderr.write(`note: ${printable(note)}\n`);
    await writeOutputFile(target, result.bytes, placement ? '--st-folder' : '--out');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const where = placement ? ` (${printable(placement.layout)})` : '';
    process.stderr.write(
      `wrote ${printable(target)}${where}: ${megabytes(result.bytes.length)} (${result.hfArchitecture}, ${output}, vocabulary ` +
        `${result.vocabSize}, ${result.nodes} nodes, ${result.initializers} initializers; fp32 parameters ` +
        `${megabytes(result.parameterBytes)}) in ${seconds} s\n`,
    );
    return 0;
  },
};
