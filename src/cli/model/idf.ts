// `splade-lab idf --corpus <...> --tokenizer <...> --out idf.json`: the static query weights of inference-free SPLADE
// (OpenSearch's idf.json layout, token -> weight) from a corpus tokenized by a model's tokenizer.
import { IDF_FORMULA, idfTableOfCorpus, smallIdfWarning } from '../../app/evaluation/idf-table-node.ts';
import { openTokenizer } from '../../app/model/open-model.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { checkOutputPath, inputsOf, writeOutputFile } from '../output-file.ts';
import type { Command } from '../command.ts';

export const idfCommand: Command = {
  spec: {
    name: 'idf',
    summary: "the static query weights of inference-free SPLADE: every token's IDF over a corpus, as OpenSearch's idf.json",
    options: {
      corpus: {
        value: 'path',
        help: 'a BEIR corpus (folder or corpus.jsonl: title and text), a .jsonl file ("text", optional "title") or a .txt file (one document per line)',
        required: true,
      },
      tokenizer: {
        value: 'dir|id',
        help: 'the model (or tokenizer) whose tokens are weighted: a folder or a Hub id',
        required: true,
      },
      out: { value: 'file', help: 'where to write the table (JSON: {"token": weight, ...})', required: true },
      json: { help: 'print a JSON summary instead of text' },
    },
    notes:
      `Weights: ${IDF_FORMULA}, N the corpus's documents (blank ones skipped), df(t) the documents\n` +
      "whose tokens (the tokenizer's, without special tokens, not truncated) include t at least once. Every vocabulary\n" +
      "token but the special ones is written, in id order; a token in no document weighs 0 (OpenSearch's get_idf.py\n" +
      "leaves such tokens out, and sentence-transformers' SparseStaticEmbedding.from_json reads them as 0; they are\n" +
      'written as 0 so that ml-commons, which reads a missing token as 1.0, agrees). Fewer than 1,000 documents give\n' +
      'a noisy table: a warning on stderr.',
  },
  async run(args) {
    const out = args.required('out');
    await checkOutputPath(out, '--out', inputsOf(args, 'corpus', 'tokenizer'));
    const tokenizer = await openTokenizer(nodePlatform, await modelRefFromArgument(args.required('tokenizer')));
    const table = await idfTableOfCorpus(args.required('corpus'), tokenizer);
    await writeOutputFile(out, JSON.stringify(table.json) + '\n', '--out');
    const warning = smallIdfWarning(table.documents, '--corpus');
    if (warning) process.stderr.write(`warning: ${args.required('corpus')}: ${warning}\n`);
    const { documents: N, skipped, tokensSeen: seen } = table;
    const summary = {
      documents: N,
      skipped,
      tokens: Object.keys(table.json).length,
      tokensSeen: seen,
      formula: IDF_FORMULA,
      out,
    };
    if (args.flag('json')) process.stdout.write(JSON.stringify(summary) + '\n');
    else
      process.stdout.write(
        `idf of ${summary.tokens} tokens (${seen} seen) over ${N} documents${skipped ? ` (${skipped} blank skipped)` : ''} ` +
          `written to ${out}\n  ${IDF_FORMULA}\n`,
      );
    return 0;
  },
};
