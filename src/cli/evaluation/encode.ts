// `splade-lab encode --model <m> --in <jsonl> --out <file>`: argument adapter over the model session's encode and
// exportVectors: sparse vectors of BEIR-style records for Anserini, Qdrant, Elasticsearch, OpenSearch, Vespa or
// Seismic (docs/deploy.md), and for Vespa the schema and services.xml that go with the feed.
import { basename } from 'node:path';
import {
  checkExportField,
  EXPORT_DEFAULTS,
  EXPORT_FORMAT_SUMMARIES,
  EXPORT_FORMATS,
  exportVectors,
  isExportFormat,
  readExportRecords,
  vespaSchema,
  vespaServices,
  VESPA_MODEL_FILE,
} from '../../app/evaluation/export-vectors.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { QUERY_MODEL_OPTION, withModelSession } from '../model/model-session.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';

const FORMAT_NOTES = EXPORT_FORMATS.map((f) => `  ${f}: ${EXPORT_FORMAT_SUMMARIES[f]}`).join('\n');

/** The Vespa application files asked for, checked before any work: the schema's file name must be <doctype>.sd. */
async function vespaFiles(args: Args, format: string): Promise<{ schema?: string; services?: string }> {
  const schema = args.string('vespa-schema');
  const services = args.string('vespa-services');
  if ((schema || services) && format !== 'vespa')
    throw new UsageError('--vespa-schema and --vespa-services go with --format vespa');
  const doctype = args.string('vespa-doctype')!;
  if (schema && basename(schema) !== `${doctype}.sd`)
    throw new UsageError(
      `--vespa-schema ${schema}: Vespa reads a schema from schemas/<document type>.sd, so name it ${doctype}.sd (or set --vespa-doctype)`,
    );
  if (schema) await checkOutputPath(schema, '--vespa-schema', inputsOf(args, 'in', 'model', 'query-model'));
  if (services) await checkOutputPath(services, '--vespa-services', inputsOf(args, 'in', 'model', 'query-model'));
  return { schema, services };
}

export const encodeCommand: Command = {
  spec: {
    name: 'encode',
    summary: 'encode JSONL records into sparse vectors for Anserini, Qdrant, Elasticsearch, OpenSearch, Vespa or Seismic',
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      ...QUERY_MODEL_OPTION,
      in: { value: 'records.jsonl', help: 'one {"_id", "title"?, "text"} object per line', required: true },
      out: {
        value: 'vectors.jsonl',
        help: 'the vectors in --format, one line per record (two for the _bulk formats es, opensearch, opensearch-ids)',
        required: true,
      },
      format: { value: EXPORT_FORMATS.join('|'), help: 'the engine the file is for (see below)', default: 'anserini' },
      field: {
        value: 'name',
        help: 'the vector field (es, opensearch, opensearch-ids, vespa) or named sparse vector (qdrant)',
        default: EXPORT_DEFAULTS.field,
      },
      'max-length': { value: 'T', help: 'tokens per text', default: '256' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: '1' },
      prune: { value: 'N', help: "keep each vector's N largest weights (0: all)", default: '0' },
      scale: { value: 'S', help: 'Anserini weight quantisation factor: round(S w)', default: String(EXPORT_DEFAULTS.scale) },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      side: {
        value: 'query|document',
        help: "encode the texts as queries or as documents: an inference-free model's queries are its static table's weights of their tokens (a lookup); other models encode both alike",
        default: 'document',
      },
      'vespa-namespace': {
        value: 'ns',
        help: "the namespace of the vespa feed's document ids (id:<ns>:<doctype>::<id>)",
        default: EXPORT_DEFAULTS.vespaNamespace,
      },
      'vespa-doctype': {
        value: 'name',
        help: 'the Vespa document type (and schema name) of the feed',
        default: EXPORT_DEFAULTS.vespaDoctype,
      },
      'vespa-schema': {
        value: 'doctype.sd',
        help: 'with --format vespa: also write the schema (the tensor<float>(token{}) field and a rank profile "splade" scoring by the sparse dot product)',
      },
      'vespa-services': {
        value: 'services.xml',
        help: `with --format vespa: also write services.xml, a splade-embedder reading models/${VESPA_MODEL_FILE} and models/tokenizer.json`,
      },
    },
    notes:
      `Formats (docs/deploy.md gives each one's layout, the engine source it follows and how to load it):\n${FORMAT_NOTES}\n` +
      'es, opensearch and opensearch-ids write _bulk NDJSON: an action line {"index": {"_id": <id>}} then the source {<field>: {...}, "text"}, ' +
      'for curl --data-binary @file to <index>/_bulk. Elasticsearch and OpenSearch keep each weight in a Lucene FeatureField, ' +
      'which stores Float.floatToIntBits(w) >>> 15 as a 16-bit term frequency: 9 significant bits, a relative error under 0.4% ' +
      "(2^-8); weights below 2^-126 are left out. On OpenSearch's SEISMIC path (sparse_vector, large segments) a weight " +
      'is further stored as a byte, round(min(w, c) * 255 / c) with c = quantization_ceiling_ingest (default 3), and ids fold ' +
      'modulo 32768 (said for a larger vocabulary). A name that several tokens of the file would share (es: "." written "__"; ' +
      'opensearch, vespa, seismic: ids spelling one token) is refused, never summed. Qdrant points take the record ids when all ' +
      'are unsigned integers or UUIDs, else the line numbers (the id stays in payload.doc_id). Seismic: more than 65,535 ' +
      'distinct tokens need SeismicIndexLV (said when it happens).',
  },
  async run(args) {
    const format = args.string('format')!;
    if (!isExportFormat(format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got "${format}"`);
    let field: string;
    try {
      field = checkExportField(args.string('field')!);
    } catch (error) {
      throw new UsageError(`--field: ${(error as Error).message}`);
    }
    const input = args.required('in');
    const output = args.required('out');
    await checkOutputPath(output, '--out', inputsOf(args, 'in', 'model', 'query-model'));
    const vespa = await vespaFiles(args, format);
    const { records, warnings } = readExportRecords(await readInputFile('in', input), input);
    for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    const texts = records.map((r) => r.text);
    const side = args.string('side');
    if (side !== 'query' && side !== 'document') throw new UsageError(`--side must be query or document, got "${side}"`);
    const request = {
      k: args.numberOrDefault('k'),
      maxLength: args.numberOrDefault('max-length'),
      topK: args.numberOrDefault('prune'),
    };
    const options = {
      scale: args.numberOrDefault('scale'),
      field,
      vespa: { namespace: args.string('vespa-namespace'), doctype: args.string('vespa-doctype') },
    };
    const exported = await withModelSession(
      args.required('model'),
      'encode',
      { batchSize: args.numberOrDefault('batch'), queryModel: args.string('query-model') },
      async (session) => {
        const encode = side === 'query' ? session.encodeQueries.bind(session) : session.encode.bind(session);
        const vectors = await encode(texts, request, {
          onProgress: (done, total) => process.stderr.write(`\rencoded ${done}/${total}   `),
        });
        process.stderr.write('\n');
        return exportVectors(format, records, vectors, session.vocabulary(), options);
      },
    );
    await writeOutputFile(output, exported.lines.join('\n') + '\n', '--out');
    for (const warning of exported.warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    process.stderr.write(`wrote ${records.length} ${format} vectors to ${output}\n`);
    const app = { doctype: options.vespa.doctype!, field };
    if (vespa.schema) {
      await writeOutputFile(vespa.schema, vespaSchema(app), '--vespa-schema');
      process.stderr.write(`wrote the Vespa schema to ${vespa.schema}\n`);
    }
    if (vespa.services) {
      await writeOutputFile(vespa.services, vespaServices(app), '--vespa-services');
      process.stderr.write(`wrote Vespa's services.xml to ${vespa.services}\n`);
    }
    return 0;
  },
};
