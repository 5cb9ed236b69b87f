// `splade-lab encode --model <dir> --in <jsonl> --out <jsonl>`: sparse vectors of BEIR-style records, written for
// Anserini (token -> integer weight), Qdrant (indices/values) or Elasticsearch/OpenSearch (rank_features).
import { readFile, writeFile } from 'node:fs/promises';
import { beirDocumentText, parseBeirJsonl } from '../io/beir.ts';
import { anseriniDocumentLine, qdrantSparseVector, rankFeatures } from '../retrieval/exports.ts';
import { numberOption, parseArgs, stringOption, type Command } from './command.ts';
import { openGpuSession } from './gpu-session.ts';

const usage = `usage: splade-lab encode --model <dir-or-hub-id> --in <records.jsonl> --out <vectors.jsonl>
       [--format anserini|qdrant|es] [--max-length 256] [--k 1] [--prune 0] [--scale 100] [--batch 8]
Each input line is {"_id", "title"?, "text"}; the output has one line per record.`;

const FORMATS = ['anserini', 'qdrant', 'es'] as const;
type Format = (typeof FORMATS)[number];

export const encodeCommand: Command = {
  summary: 'encode JSONL records into sparse vectors for Anserini, Qdrant or Elasticsearch/OpenSearch',
  usage,
  async run(argv) {
    const args = parseArgs(argv, ['model', 'in', 'out', 'format', 'max-length', 'k', 'prune', 'scale', 'batch']);
    const [modelArg, input, output] = [stringOption(args, 'model'), stringOption(args, 'in'), stringOption(args, 'out')];
    if (!modelArg || !input || !output || args.positional.length) throw new Error(usage);
    const format = (stringOption(args, 'format') ?? 'anserini') as Format;
    if (!FORMATS.includes(format)) throw new Error(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`);
    const { records } = parseBeirJsonl(await readFile(input, 'utf8'), input);
    const session = await openGpuSession(modelArg, { k: numberOption(args, 'k', 1), batchSize: numberOption(args, 'batch', 8) });
    try {
      const texts = records.map((r) => beirDocumentText(r.title, r.text));
      const vectors = await session.encoder.encode(texts, {
        maxLength: numberOption(args, 'max-length', 256),
        topK: numberOption(args, 'prune', 0),
        onProgress: (done, total) => process.stderr.write(`\rencoded ${done}/${total}   `),
      });
      process.stderr.write('\n');
      const vocab = Array.from({ length: session.loaded.config.vocabSize }, (_, id) => session.loaded.tokenizer.idToToken(id) ?? `[unused${id}]`);
      const scale = numberOption(args, 'scale', 100);
      let dropped = 0;
      const lines = records.map((record, i) => {
        const vector = vectors[i];
        if (format === 'anserini') return anseriniDocumentLine(record.id, vector, vocab, { scale, contents: texts[i] });
        if (format === 'qdrant') return JSON.stringify({ id: record.id, vector: qdrantSparseVector(vector) });
        const features = rankFeatures(vector, vocab, { dotReplacement: '_' });
        dropped += features.droppedNonPositive + features.droppedDotted;
        return JSON.stringify({ id: record.id, rank_features: features.features });
      });
      await writeFile(output, lines.join('\n') + '\n');
      if (dropped) process.stderr.write(`warning: ${dropped} entries were not representable as rank_features and were left out\n`);
      process.stderr.write(`wrote ${lines.length} ${format} vectors to ${output}\n`);
      return 0;
    } finally {
      session.close();
    }
  },
};
