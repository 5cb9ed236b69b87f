// An inference-free model saved from the common backbones (BERT, DistilBERT, RoBERTa, GTE-MLM), whose Hub
// tokenizer_config.json names no tokenizer_class, loads its query tokenizer in transformers: the Router's query folder
// names a class that AutoTokenizer resolves without reading that folder's config.json ({"frozen": ...}), by the rule
// written down in tests/fixtures/transformers/autotokenizer-resolution.json; and its table has the tokenizer's size.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../src/io/formats/safetensors.ts';
import type { Architecture } from '../../../src/contract/model/model-config.ts';
import { runCli } from '../../helpers/cli.ts';
import { TINY_VOCAB, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

interface Resolution {
  rule: { configJsonFailureIsFatal: Record<string, boolean>; specialNames: Record<string, string[]> };
  tokenizerMappingNames: { '4.x': Record<string, (string | null)[]>; '5.x': Record<string, string> };
}

const FIXTURE = join(import.meta.dirname, '../../fixtures/transformers/autotokenizer-resolution.json');

/** Whether transformers `version` finds a class for tokenizer_config.json `config` without the folder's config.json. */
function resolvesWithoutConfigJson(resolution: Resolution, version: '4.x' | '5.x', config: Record<string, unknown>): boolean {
  const name = config.tokenizer_class;
  if (typeof name !== 'string') return !resolution.rule.configJsonFailureIsFatal[version];
  const known = new Set<string>(resolution.rule.specialNames[version]);
  for (const value of Object.values(resolution.tokenizerMappingNames[version]))
    for (const n of [value].flat()) if (n) known.add(n);
  // 4.x tries name + "Fast" first (use_fast), then the name; 5.x strips "Fast" and tries the name, then name + "Fast"
  const candidates = name.endsWith('Fast') ? [name, name.slice(0, -4)] : [`${name}Fast`, name];
  return candidates.some((candidate) => known.has(candidate));
}

/** The Hub's tokenizer_config.json of each family's common checkpoint (none names its tokenizer_class). */
const HUB_TOKENIZER_CONFIG: Record<string, object> = {
  bert: { do_lower_case: true, model_max_length: 512 }, // google-bert/bert-base-uncased
  distilbert: { do_lower_case: true, model_max_length: 512 }, // distilbert/distilbert-base-uncased
  roberta: { model_max_length: 512 }, // FacebookAI/roberta-base
  gte: { do_lower_case: true, model_max_length: 8192 },
};

const TSV =
  [
    'cat on a mat\tthe cat sat on the mat\tthe dog ran in the forest',
    'gene drug study\ta drug study of the gene\tthe sun and the moon',
  ].join('\n') + '\n';

let root: string;
let resolution: Resolution;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-router-tokenizer-'));
  await writeFile(join(root, 'two.tsv'), TSV);
  resolution = JSON.parse(await readFile(FIXTURE, 'utf8')) as Resolution;
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe.each(['bert', 'distilbert', 'roberta', 'gte'] as Architecture[])('a Router saved from a %s backbone', (arch) => {
  it('names a tokenizer_class AutoTokenizer resolves from the query folder alone, and sizes the table to the tokenizer', async () => {
    const backbone = join(root, arch);
    // GTE-MLM's config says 30528 rows for a 30522-token tokenizer: the tiny one keeps 6 extra rows too
    await writeTinySpladeModel(backbone, arch, arch === 'gte' ? { vocabSize: TINY_VOCAB.length + 6 } : {});
    const source = HUB_TOKENIZER_CONFIG[arch] as Record<string, unknown>;
    await writeFile(join(backbone, 'tokenizer_config.json'), JSON.stringify(source));
    for (const version of ['4.x'] as const)
      expect(resolvesWithoutConfigJson(resolution, version, source), `source under ${version}`).toBe(false);
    const out = join(root, `${arch}-run`);
    const small = ['--batch', '2', '--steps', '1', '--query-length', '8', '--doc-length', '12', '--no-batch-cache'];
    const trained = await runCli(
      'train',
      '--model',
      backbone,
      '--triplets',
      join(root, 'two.tsv'),
      '--out',
      out,
      '--inference-free',
      ...small,
    );
    expect(trained.code, trained.stderr).toBe(0);
    const query = join(out, 'model', 'query_0_SparseStaticEmbedding');
    const config = JSON.parse(await readFile(join(query, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    for (const version of ['4.x', '5.x'] as const)
      expect(resolvesWithoutConfigJson(resolution, version, config), `${String(config.tokenizer_class)} under ${version}`).toBe(
        true,
      );
    expect(config).toMatchObject({ ...source, pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]' });
    const weight = readSafetensors(
      new Uint8Array(await readFile(join(query, 'model.safetensors'))),
      'model.safetensors',
    ).tensors.get('weight')!;
    expect(weight.shape).toEqual([TINY_VOCAB.length]); // len(tokenizer.get_vocab()), as SparseStaticEmbedding sizes it
  });
});
