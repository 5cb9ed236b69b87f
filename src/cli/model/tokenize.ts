// `splade-lab tokenize <model-or-tokenizer>`: one text per stdin line -> one JSON line of ids and attention mask,
// equal to Hugging Face's tokenization (argument adapter over openTokenizer).
import { createInterface } from 'node:readline';
import { openTokenizer } from '../../app/model/open-model.ts';
import { EVAL_LIMITS, checkRange } from '../../contract/limits.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import type { Command } from '../command.ts';

export const tokenizeCommand: Command = {
  spec: {
    name: 'tokenize',
    summary: 'tokenize stdin (one text per line) into JSON lines of ids and attentionMask, truncating as Hugging Face does',
    positionals: [{ name: 'model-or-tokenizer', help: 'a model or tokenizer folder, or a Hub id' }],
    options: {
      'max-length': { value: 'N', help: 'truncate to N tokens, special tokens included' },
    },
  },
  async run(args) {
    const raw = args.number('max-length');
    const maxLength = raw === undefined ? undefined : checkRange(raw, EVAL_LIMITS.documentLength, 'The maximum length');
    const tokenizer = await openTokenizer(nodePlatform, await modelRefFromArgument(args.positional(0)!));
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
