// `splade-lab tokenize <model-or-tokenizer> [--max-length N]`: one text per stdin line -> one JSON line of ids and mask.
import { createInterface } from 'node:readline';
import { loadTokenizer } from '../io/tokenizer-load.ts';
import { numberOption, parseArgs, type Command } from './command.ts';
import { resolveModelSource } from './model-source.ts';

export const tokenizeCommand: Command = {
  summary: 'tokenize stdin (one text per line) into JSON lines of ids and attentionMask, truncating as Hugging Face does',
  async run(argv) {
    const args = parseArgs(argv, ['max-length']);
    const [model] = args.positional;
    if (!model || args.positional.length > 1) throw new Error('usage: splade-lab tokenize <model-or-tokenizer-folder-or-hub-id> [--max-length N] < texts.txt');
    const maxLength = args.options.has('max-length') ? numberOption(args, 'max-length', 0) : undefined;
    const tokenizer = await loadTokenizer(await resolveModelSource(model));
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      const { ids, attentionMask } = tokenizer.encode(line, { maxLength });
      if (!process.stdout.write(JSON.stringify({ ids, attentionMask }) + '\n')) {
        await new Promise((resolve) => process.stdout.once('drain', resolve));
      }
    }
    return 0;
  },
};
