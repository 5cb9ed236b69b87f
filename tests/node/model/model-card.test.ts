// modelCard: Hub front matter (library, pipeline, tags, base_model/datasets/language/license only when known, YAML
// quoting) and a body that records the backbone, k and the tying, the recipe, the data, the steps and the results.
import { describe, expect, it } from 'vitest';
import { modelCard, type ModelCardInfo } from '../../../src/app/model/model-card.ts';
import { paperRecipe } from '../../../src/contract/recipe.ts';

function info(overrides: Partial<ModelCardInfo> = {}): ModelCardInfo {
  return {
    base: {
      name: 'answerdotai/ModernBERT-base',
      hubId: 'answerdotai/ModernBERT-base',
      architecture: 'ModernBertForMaskedLM',
      tiedHead: true,
      vocabSize: 50368,
      meanRowNorm: 2.553,
    },
    k: 8,
    recipe: paperRecipe(9000, 64),
    seed: 1,
    data: { name: 'msmarco-triplets.tsv', triplets: 576_000, crc32: 0x0badf00d },
    steps: 9000,
    maxSeqLength: 256,
    ...overrides,
  };
}

/** The front matter's lines and the body, split at the two `---` lines. */
function split(card: string): { yaml: string[]; body: string } {
  const lines = card.split('\n');
  expect(lines[0]).toBe('---');
  const end = lines.indexOf('---', 1);
  expect(end).toBeGreaterThan(0);
  return { yaml: lines.slice(1, end), body: lines.slice(end + 1).join('\n') };
}

describe('modelCard', () => {
  it('writes the Hub metadata of a SparseEncoder: library, pipeline, tags and the base model when it is a Hub id', () => {
    const { yaml } = split(modelCard(info()));
    expect(yaml).toEqual([
      'library_name: sentence-transformers',
      'pipeline_tag: feature-extraction',
      'tags:',
      '- sentence-transformers',
      '- sparse-encoder',
      '- sparse',
      '- splade',
      '- splade-lab',
      '- head-divided-by-k-8',
      'base_model: answerdotai/ModernBERT-base',
    ]);
  });

  it('adds datasets, language and license only when known, quoting what YAML would misread', () => {
    const { yaml } = split(
      modelCard(
        info({
          datasets: ['sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3'],
          language: ['en', 'no'],
          license: 'apache-2.0',
        }),
      ),
    );
    expect(yaml).toEqual(
      expect.arrayContaining([
        'datasets:',
        '- sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3',
        'language:',
        '- en',
        '- "no"',
        'license: apache-2.0',
      ]),
    );
    const local = split(modelCard(info({ base: { ...info().base, name: '/models/my bert', hubId: null } })));
    expect(local.yaml.some((l) => /^(base_model|datasets|language|license):/.test(l))).toBe(false);
    expect(local.body).toContain('`/models/my bert` (not a Hub id)');
  });

  it('records k, the tying, the head norms and that the saved weights already include the division', () => {
    const { body } = split(modelCard(info()));
    expect(body).toContain('**k = 8**');
    expect(body).toContain('the shared matrix was divided (the input embeddings with it) and the tying was kept');
    expect(body).toContain('2.553 before the division and 0.319 after it');
    expect(body).toContain('do not divide again');
    const untied = split(modelCard(info({ k: 0.5, base: { ...info().base, tiedHead: false } }))).body;
    expect(untied).toContain('**k = 0.5**');
    expect(untied).toContain('only the decoder matrix was divided');
  });

  it('records the whole recipe, the data fingerprint and the steps', () => {
    const { body } = split(modelCard(info({ steps: 4500 })));
    for (const text of [
      '| steps trained | 4500 of 9000 (0.500 epochs of the data) |',
      '64 triplets per step',
      'all 128 documents of the batch',
      'queries 256 tokens, documents 256 tokens',
      'AdamW, beta1 0.9, beta2 0.999, eps 1e-8, decoupled weight decay 0 on weights and embeddings (not biases and LayerNorms)',
      'peak 1e-4, linear warm-up over 900 steps',
      'temperature tau = 1',
      'scale 1)',
      'lambda_q = 0.05, lambda_d = 0.003',
      'lambda(t) = lambda * min(1, t / 3000)^2',
      '`msmarco-triplets.tsv`, 576000 triplets, CRC-32 of the file `0badf00d`',
      'seed 1',
    ]) {
      expect(body).toContain(text);
    }
    expect(split(modelCard(info({ data: undefined }))).body).toContain('Not recorded when this model was saved.');
  });

  it('tabulates evaluation results per set when given, and leaves the section out otherwise', () => {
    const { body } = split(
      modelCard(
        info({
          evaluation: [
            { set: 'NanoMSMARCO', measures: { ndcg_cut_10: 0.51234, recip_rank_10: 0.4 } },
            { set: 'Nano|FiQA', measures: { ndcg_cut_10: 0.3 } },
          ],
        }),
      ),
    );
    expect(body).toContain('| set | ndcg_cut_10 | recip_rank_10 |');
    expect(body).toContain('| NanoMSMARCO | 0.5123 | 0.4000 |');
    expect(body).toContain('| Nano\\|FiQA | 0.3000 |  |');
    expect(split(modelCard(info())).body).not.toContain('## Evaluation');
  });

  it('shows the sentence-transformers usage and the search-engine exports', () => {
    const { body } = split(modelCard(info()));
    for (const text of [
      'SparseEncoder("path/to/this/folder")',
      'encode_query',
      'encode_document',
      'model.similarity',
      '--format anserini',
      '--format qdrant',
    ]) {
      expect(body).toContain(text);
    }
  });

  it('refuses a k that is not a positive number', () => {
    expect(() => modelCard(info({ k: 0 }))).toThrow(/k must be a positive number, got 0/);
    expect(() => modelCard(info({ k: Number.NaN }))).toThrow(/got NaN/);
  });

  it("has one dropout row, and names the data order the run used (a seeded shuffle, or the file's order)", () => {
    const rows = (card: string, setting: string) => card.split('\n').filter((line) => line.startsWith(`| ${setting} |`));
    const shuffled = modelCard(info());
    expect(rows(shuffled, 'dropout')).toHaveLength(1);
    expect(rows(shuffled, 'data order')).toEqual(['| data order | a seeded shuffle per epoch (seed 1) |']);
    const inOrder = modelCard(info({ recipe: { ...paperRecipe(9000, 64), dataOrder: 'file', dropout: 0.1 } }));
    expect(rows(inOrder, 'dropout')).toHaveLength(1);
    expect(rows(inOrder, 'data order')).toEqual(["| data order | the file's order, every epoch (no shuffle) |"]);
  });
});
