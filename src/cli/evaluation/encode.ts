// `splade-lab encode --model <m> --in <jsonl> --out <jsonl>`: argument adapter over the model session's encode and
// exportVectors: sparse vectors of BEIR-style records for Anserini, Qdrant or Elasticsearch/OpenSearch.
import { writeFile } from 'node:fs/promises';
import { EXPORT_FORMATS, exportVectors, isExportFormat, readExportRecords } from '../../app/evaluation/export-vectors.ts';
import { printable } from '../../util/printable.ts';
import { UsageError, type Command } from '../command.ts';
import { readInputFile } from '../input-file.ts';
import { withModelSession } from '../model/model-session.ts';
import { checkOutputFile } from '../../app/platform/platform-node.ts';

export const encodeCommand: Command = {
  spec: {
    name: 'encode',
    summary: 'encode JSONL records into sparse vectors for Anserini, Qdrant or Elasticsearch/OpenSearch',
    options: {
      model: { value: 'dir-or-hub-id', help: 'a SPLADE or MLM model folder, or a Hub id', required: true },
      in: { value: 'records.jsonl', help: 'one {"_id", "title"?, "text"} object per line', required: true },
      out: { value: 'vectors.jsonl', help: 'one vector per input line', required: true },
      format: {
        value: EXPORT_FORMATS.join('|'),
        help: 'anserini: token -> round(scale w); qdrant: indices/values; es: rank_features',
        default: 'anserini',
      },
      'max-length': { value: 'T', help: 'tokens per text', default: '256' },
      k: { value: 'K', help: 'divide the MLM head by k first', default: '1' },
      prune: { value: 'N', help: "keep each vector's N largest weights (0: all)", default: '0' },
      scale: { value: 'S', help: 'Anserini weight quantisation factor', default: '100' },
      batch: { value: 'B', help: 'texts per GPU batch', default: '8' },
      side: {
        value: 'query|document',
        help: "encode the texts as queries or as documents: an inference-free model's queries are its static table's weights of their tokens (a lookup); other models encode both alike",
        default: 'document',
      },
    },
  },
  async run(args) {
    const format = args.string('format')!;
    if (!isExportFormat(format)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got "${format}"`);
    const input = args.required('in');
    const output = args.required('out');
    await checkOutputFile(output, '--out');
    const { records, warnings } = readExportRecords(await readInputFile('in', input), input);
    for (const warning of warnings) process.stderr.write(`warning: ${printable(warning)}\n`);
    const texts = records.map((r) => r.text);
    const side = args.string('side');
    if (side !== 'query' && side !== 'document') throw new UsageError(`--side must be query or document, got "${side}"`);
    const request = { k: args.numberOr('k', 1), maxLength: args.numberOr('max-length', 256), topK: args.numberOr('prune', 0) };
    const exported = await withModelSession(
      args.required('model'),
      'encode',
      { batchSize: args.numberOr('batch', 8) },
      async (session) => {
        const encode = side === 'query' ? session.encodeQueries.bind(session) : session.encode.bind(session);
        const vectors = await encode(texts, request, {
          onProgress: (done, total) => process.stderr.write(`\rencoded ${done}/${total}   `),
        });
        process.stderr.write('\n');
        return exportVectors(format, records, vectors, session.vocabulary(), args.numberOr('scale', 100));
      },
    );
    await writeFile(output, exported.lines.join('\n') + '\n');
    if (exported.dropped)
      process.stderr.write(`warning: ${exported.dropped} entries were not representable as rank_features and were left out\n`);
    process.stderr.write(`wrote ${exported.lines.length} ${format} vectors to ${output}\n`);
    return 0;
  },
};
