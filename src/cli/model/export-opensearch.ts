// `splade-lab export-opensearch --model <dir> --out bundle.zip [--side document|query]`: argument adapter over the
// OpenSearch ml-commons bundles: the zip and, beside it, the register API's model config (size and SHA-256 of the zip).
import { type OpenSearchBundle, openSearchDocumentBundle, openSearchQueryBundle } from '../../app/model/opensearch-bundle.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import { printable } from '../../util/printable.ts';
import { type Command, UsageError } from '../command.ts';

export const exportOpenSearchCommand: Command = {
  spec: {
    name: 'export-opensearch',
    summary:
      "an OpenSearch ml-commons model zip and its register config: documents (SPARSE_ENCODING, ONNX) or an inference-free model's queries (SPARSE_TOKENIZE)",
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      out: { value: 'bundle.zip', help: 'the zip to write', required: true },
      config: {
        value: 'file.json',
        help: "the register API's model config (default: --out with .json for .zip)",
      },
      side: {
        value: 'document|query',
        help:
          'document: model.onnx (the pooled graph) + tokenizer.json, function SPARSE_ENCODING; query: tokenizer.json + ' +
          "idf.json of an inference-free model's static query table, function SPARSE_TOKENIZE",
        default: 'document',
      },
      name: { value: 'text', help: 'the model name to register (default: splade-lab/<model>)' },
      version: { value: 'text', help: 'the model version to register', default: '1.0.0' },
      k: {
        value: 'K',
        help: 'divide the MLM head by k (document side; a folder saved by a run is divided already)',
        default: '1',
      },
      opset: { value: 'N', help: 'ONNX opset of the default domain (17 to 21; document side)', default: '17' },
    },
    notes:
      'Register by URL: POST /_plugins/_ml/models/_register with the config file\'s fields plus "url" (where the zip is ' +
      "served); ml-commons checks model_content_hash_value (SHA-256 of the zip) and needs tokenizer.json at the zip's " +
      "root. The document graph takes input1.input_ids and input1.attention_mask (the names ml-commons' translator " +
      'gives the arrays it feeds) and returns `output`, the (batch, vocabulary) SPLADE vector. The query zip keys idf.json ' +
      'by the text each token decodes to, as ml-commons looks weights up, and lists every token (one it lacks weighs ' +
      '1.0 there). Layout and checks follow opensearch-project/ml-commons 3.8 and opensearch-py-ml.',
  },
  async run(args) {
    const side = args.string('side');
    if (side !== 'document' && side !== 'query') throw new UsageError(`--side must be document or query, got "${side}"`);
    const out = args.required('out');
    const configPath = args.string('config') ?? (out.endsWith('.zip') ? `${out.slice(0, -4)}.json` : `${out}.json`);
    if (configPath === out) throw new UsageError('--config must name another file than --out');
    await checkOutputPath(out, '--out', inputsOf(args, 'model'));
    await checkOutputPath(configPath, '--config', inputsOf(args, 'model'));
    const ref = await modelRefFromArgument(args.required('model'));
    const naming = { version: args.string('version') ?? '1.0.0', ...(args.has('name') ? { name: args.required('name') } : {}) };
    const bundle: OpenSearchBundle =
      side === 'document'
        ? await openSearchDocumentBundle(nodePlatform, ref, {
            k: args.numberOrDefault('k'),
            opset: args.numberOrDefault('opset'),
            ...naming,
          })
        : await openSearchQueryBundle(nodePlatform, ref, naming);
    for (const note of bundle.notes) process.stderr.write(`note: ${printable(note)}\n`);
    await writeOutputFile(out, bundle.zip, '--out');
    await writeOutputFile(configPath, JSON.stringify(bundle.config, null, 2) + '\n', '--config');
    const { config } = bundle;
    process.stderr.write(
      `wrote ${printable(out)} (${bundle.files.join(', ')}; ${config.model_content_size_in_bytes} bytes, sha256 ` +
        `${config.model_content_hash_value}) and ${printable(configPath)} (${config.function_name}, ${config.model_format})\n`,
    );
    return 0;
  },
};
