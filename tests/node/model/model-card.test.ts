// modelCard: Hub front matter (library, pipeline, tags, base_model/datasets/language/license only when known, YAML
// quoting) and a body that records the backbone, k and the tying, the recipe, the data, the steps and the results;
// per loss, the candidates each query is scored against, the regulariser's sides and the total loss as trained.
import { describe, expect, it } from 'vitest';
import { modelCard, type ModelCardInfo } from '../../../src/app/model/model-card.ts';
import { paperRecipe, type TrainingRecipe } from '../../../src/contract/training/recipe.ts';

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

describe('modelCard per loss', () => {
  /** The card's row for a setting (its value, pipes unescaped), and its usage text, for a recipe. */
  function card(recipe: Partial<TrainingRecipe>) {
    const text = modelCard(info({ recipe: { ...paperRecipe(1000, 16), ...recipe } }));
    const row = (setting: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`| ${setting} |`));
      return line?.slice(`| ${setting} | `.length, -' |'.length).replace(/\\\|/g, '|');
    };
    return { text, row };
  }
  const inferenceFree = (l1?: number, lr?: number) => ({
    inferenceFree: {
      queryWeights: 'idf over the 5000 documents of corpus.jsonl',
      crc32: 1,
      ...(l1 !== undefined ? { trained: { l1, ...(lr !== undefined ? { lr } : {}) } } : {}),
    },
  });

  it.each([
    [1, 32],
    [3, 64],
  ])('contrastive with %i negative(s): in-batch and hard negatives, all %i documents of the batch', (n, documents) => {
    const { row } = card(n > 1 ? { negatives: n } : {});
    expect(row('batch')).toBe(
      `16 triplets per step (query, positive, ${n} hard negative${n > 1 ? 's' : ''}); in-batch negatives plus the hard negatives: ` +
        `every query is scored against all ${documents} documents of the batch (every query's positive and negatives)`,
    );
    expect(row('ranking loss')).toBe(
      `in-batch contrastive loss: L_rank = mean over the 16 queries of -log softmax(s(q, d) / tau) at the query's positive, over all ${documents} documents of the batch, ` +
        "with temperature tau = 1 (tau = 1 is the paper's; sentence-transformers' SparseMultipleNegativesRankingLoss with scale 1)",
    );
    expect(row('FLOPS regulariser')).toBe(
      `sum over the vocabulary of (mean over the batch of the weights)^2: FLOPS(documents) over the ${documents} documents (the 16 positives ` +
        `and every negative column, ${n} per query, together); FLOPS(queries) over the 16 queries`,
    );
    expect(row('lambdas')).toMatch(/^lambda_q = 0\.05, lambda_d = 0\.003, each ramped/);
    expect(row('total loss')).toBe('L = L_rank + lambda_q(t)·FLOPS(queries) + lambda_d(t)·FLOPS(documents)');
  });

  it('marginmse: each query against its own positive and negatives, MSE of margins, mean over B·n', () => {
    const { row } = card({ loss: 'marginmse', negatives: 2 });
    expect(row('batch')).toBe(
      '16 rows per step (query, positive, 2 hard negatives, teacher labels); each query is scored against its own positive and its 2 negatives only (no in-batch negatives)',
    );
    expect(row('ranking loss')).toBe(
      "MarginMSE: L_rank = mean over the 16·2 (query, negative) pairs of (s(q, pos) - s(q, neg_i) - m_i)^2, m_i the teacher's margin " +
        "(score lists [pos, neg_1..n] taken as pos - neg_i); each query against its own positive and 2 negatives only (sentence-transformers' SparseMarginMSELoss)",
    );
    expect(row('FLOPS regulariser')).toContain(
      'FLOPS(documents) over the 48 documents (the 16 positives and every negative column, 2 per query, together)',
    );
    expect(row('total loss')).toBe('L = L_rank + lambda_q(t)·FLOPS(queries) + lambda_d(t)·FLOPS(documents)');
  });

  it("kl: softmax over the query's own [pos, neg_1..n] at T, KL(teacher ‖ student)·T², mean over B; T = 2 is sentence-transformers' default", () => {
    const { row, text } = card({ loss: 'kl', tau: 2 });
    expect(row('batch')).toContain(
      'each query is scored against its own positive and its 1 negative only (no in-batch negatives)',
    );
    expect(row('ranking loss')).toBe(
      "KL divergence: L_rank = T^2 · mean over the 16 queries of KL(softmax(teacher / T) ‖ softmax(student / T)) over the query's own 2 candidates " +
        "[positive, negative_1..1], at temperature T = 2 (T = 2 is sentence-transformers' SparseDistillKLDivLoss default and splade-lab's for this loss; " +
        "sentence-transformers' SparseDistillKLDivLoss)",
    );
    expect(text).not.toContain('documents of the batch');
    expect(card({ loss: 'kl', tau: 1 }).row('ranking loss')).toContain(
      "T = 1 (sentence-transformers' SparseDistillKLDivLoss defaults to T = 2, as splade-lab does",
    );
  });

  it('inference-free, frozen table: no query FLOPS, lambda_q unused, queries truncated as sentence-transformers does', () => {
    const { row, text } = card(inferenceFree());
    expect(row('FLOPS regulariser')).toBe(
      'sum over the vocabulary of (mean over the batch of the weights)^2: FLOPS(documents) over the 32 documents (the 16 positives and every negative ' +
        'column, 1 per query, together); the queries have none (inference-free: they are not encoded, and lambda_q is unused)',
    );
    expect(row('lambdas')).toMatch(/^lambda_d = 0\.003 \(lambda_q unused\), each ramped/);
    expect(row('total loss')).toBe('L = L_rank + lambda_d(t)·FLOPS(documents)');
    expect(row('queries')).toContain('0 for a token in no document');
    expect(text).toContain(
      "Queries are not encoded (inference-free): the Router's query route (SparseStaticEmbedding) tokenizes them without special tokens, " +
        "truncated at the tokenizer's model_max_length (512 for BERT's)",
    );
    expect(text).not.toContain('texts are truncated at');
  });

  it('inference-free with a trained table and --query-l1: its L1 enters the total loss, its own lr is stated', () => {
    const { row } = card(inferenceFree(0.02, 1e-3));
    expect(row('total loss')).toBe(
      "L = L_rank + lambda_d(t)·FLOPS(documents) + lambda_l1(t)·L1(queries), L1(queries) the mean over the batch of the query vectors' L1 norms (their tokens' table weights)",
    );
    expect(row('lambdas')).toMatch(/^lambda_d = 0\.003, lambda_l1 = 0\.02 \(lambda_q unused\), each ramped/);
    expect(row('FLOPS regulariser')).toContain('the queries have none');
    expect(row('queries')).toContain('at its own peak learning rate 0.001 on the same schedule');
    expect(row('queries')).toContain('the query vectors carry an L1 of weight 0.02');
    expect(row('learning rate')).toContain('; the query table: peak 0.001 on the same schedule');
  });

  it('inference-free with a trained table and no L1: no query term at all, the table at the model lr when it had no own', () => {
    const { row } = card(inferenceFree(0));
    expect(row('total loss')).toBe('L = L_rank + lambda_d(t)·FLOPS(documents)');
    expect(row('lambdas')).toMatch(/^lambda_d = 0\.003 \(lambda_q unused\)/);
    expect(row('queries')).toContain('the queries have no regulariser (no FLOPS, no L1)');
    expect(row('queries')).toContain('at its own peak learning rate 1e-4');
  });
});
