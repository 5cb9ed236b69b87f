// `splade-lab export-onnx --model <dir> --out model.onnx`: argument adapter over exportOnnx: the SPLADE model, head
// divided by k, as one ONNX file (input_ids, attention_mask -> sparse_vector), written atomically.
import { exportOnnx } from '../../app/model/export-onnx.ts';
import { checkOutputFile, modelRefFromArgument, nodePlatform, writeFileAtomically } from '../../app/platform/platform-node.ts';
import { printable } from '../../util/printable.ts';
import type { Command } from '../command.ts';

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

export const exportOnnxCommand: Command = {
  spec: {
    name: 'export-onnx',
    summary: 'write the SPLADE model (head divided by k) as an ONNX file: input_ids, attention_mask -> sparse vector',
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      out: { value: 'model.onnx', help: 'the ONNX file to write', required: true },
      k: { value: 'K', help: 'divide the MLM head by k', default: '1' },
      opset: { value: 'N', help: 'ONNX opset of the default domain (17 to 21)', default: '17' },
    },
    notes:
      'Inputs input_ids and attention_mask (int64, batch x sequence, both axes dynamic); output sparse_vector (float32, ' +
      'batch x vocabulary): the max over real tokens of log(1 + ReLU(logits)). A tied vocabulary matrix is stored once, ' +
      'read by the embeddings and (transposed) by the decoder, and k enters as a scalar 1/k the graph multiplies by. ' +
      'Every family splade-lab loads: BERT, DistilBERT, RoBERTa, ModernBERT, GTE, ALBERT.',
  },
  async run(args) {
    const output = args.required('out');
    await checkOutputFile(output, '--out');
    const started = performance.now();
    const ref = await modelRefFromArgument(args.required('model'));
    const result = await exportOnnx(nodePlatform, ref, { k: args.numberOr('k', 1), opset: args.numberOr('opset', 17) });
    for (const note of result.notes) process.stderr.write(`note: ${printable(note)}\n`);
    await writeFileAtomically(output, result.bytes);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `wrote ${output}: ${megabytes(result.bytes.length)} (${result.hfArchitecture}, vocabulary ${result.vocabSize}, ` +
        `${result.nodes} nodes, ${result.initializers} initializers; fp32 parameters ${megabytes(result.parameterBytes)}) in ${seconds} s\n`,
    );
    return 0;
  },
};
