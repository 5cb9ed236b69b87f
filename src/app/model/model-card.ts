// The README.md of a saved model: a Hugging Face Hub model card (YAML front matter, then Markdown) recording the
// backbone, the k its head was divided by, the whole recipe, the data fingerprint, the steps, results and usage.
import type { DataFingerprint } from '../../contract/training/training-report.ts';
import { describeOptimizer } from '../../contract/training/optimizer-settings.ts';
import { describeDropout, microBatches } from '../../contract/training/recipe-facts.ts';
import { KL_TEMPERATURE, CONTRASTIVE_TEMPERATURE, queryTableLr, type TrainingRecipe } from '../../contract/training/recipe.ts';

/** One evaluated set and its measures (trec_eval names: ndcg_cut_10, recip_rank_10, recall_1000, ...). */
export interface CardEvaluation {
  set: string;
  measures: Record<string, number>;
}

export interface ModelCardInfo {
  /** The backbone the model was fine-tuned from. */
  base: {
    /** How splade-lab named it: a Hub id, a folder, "local files". */
    name: string;
    /** Its Hub id when it came from the Hub (the card's base_model); null otherwise. */
    hubId: string | null;
    revision?: string;
    /** transformers class of the saved weights, e.g. BertForMaskedLM. */
    architecture: string;
    /** The decoder matrix is the input word-embedding matrix. */
    tiedHead: boolean;
    vocabSize: number;
    /** Mean L2 norm of the head's rows before the division (k = 1), when measured. */
    meanRowNorm?: number;
  };
  /** W_head was divided by k before training. */
  k: number;
  recipe: TrainingRecipe;
  seed: number;
  /** The training data's fingerprint; absent when it was not recorded. */
  data?: DataFingerprint;
  /** Optimiser steps the saved weights have taken. */
  steps: number;
  /** sentence_bert_config.json's max_seq_length. */
  maxSeqLength: number;
  evaluation?: CardEvaluation[];
  /** Hub dataset ids of the training data, when known. */
  datasets?: string[];
  language?: string | string[];
  license?: string;
  /** The card's title; a description of the model otherwise. */
  modelName?: string;
}

/** A YAML scalar: plain when it is a simple word or id, double-quoted (JSON syntax, valid YAML) otherwise. */
function yamlScalar(value: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(value) &&
    !/^(true|false|null|yes|no|on|off|~)$/i.test(value) &&
    !/^[0-9.]+$/.test(value)
    ? value
    : JSON.stringify(value);
}

function yamlList(key: string, values: readonly string[]): string[] {
  return [`${key}:`, ...values.map((v) => `- ${yamlScalar(v)}`)];
}

function frontMatter(info: ModelCardInfo): string[] {
  const lines = ['---', 'library_name: sentence-transformers', 'pipeline_tag: feature-extraction'];
  lines.push(
    ...yamlList('tags', [
      'sentence-transformers',
      'sparse-encoder',
      'sparse',
      'splade',
      'splade-lab',
      `head-divided-by-k-${formatNumber(info.k)}`,
    ]),
  );
  if (info.base.hubId) lines.push(`base_model: ${yamlScalar(info.base.hubId)}`);
  if (info.datasets?.length) lines.push(...yamlList('datasets', info.datasets));
  if (info.language !== undefined) {
    lines.push(...yamlList('language', typeof info.language === 'string' ? [info.language] : info.language));
  }
  if (info.license) lines.push(`license: ${yamlScalar(info.license)}`);
  lines.push('---');
  return lines;
}

/** A number as people write it: 5e-2 stays 0.05, 1e-4 stays 1e-4, integers plain. */
function formatNumber(x: number): string {
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) < 1e-3 ? x.toExponential() : String(x);
}

function crcHex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, '0');
}

/** Markdown table cell text: pipes and newlines would break the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function baseLine(info: ModelCardInfo): string {
  const { base } = info;
  const where = base.hubId
    ? `[${base.hubId}](https://huggingface.co/${base.hubId})${base.revision ? ` (revision ${base.revision})` : ''}`
    : `\`${base.name}\` (not a Hub id)`;
  return `${where}, a ${base.architecture} with a vocabulary of ${base.vocabSize}`;
}

function correctionSection(info: ModelCardInfo): string[] {
  const { k, base } = info;
  const norms =
    base.meanRowNorm !== undefined && Number.isFinite(base.meanRowNorm)
      ? ` The mean L2 norm of the head's rows was ${base.meanRowNorm.toFixed(3)} before the division and ${(base.meanRowNorm / k).toFixed(3)} after it.`
      : '';
  const tying = base.tiedHead
    ? 'The head is tied to the input word embeddings, so the shared matrix was divided (the input embeddings with it) and the tying was kept: the saved checkpoint holds the matrix once, and `tie_word_embeddings` is true in config.json.'
    : 'The head is not tied to the input word embeddings: only the decoder matrix was divided.';
  return [
    '## The head was divided by k before training',
    '',
    `Before the first step, the MLM head's vocabulary matrix W_head was divided by **k = ${formatNumber(k)}** ` +
      '(the correction of "Rescaling MLM-Head for Neural Sparse Retrieval", 2026; k = 1 is plain SPLADE). ' +
      `${tying} The decoder bias was left as it was.${norms}`,
    '',
    'The saved weights already include the division and everything learned after it: load and use them as they are, ' +
      'and do not divide again.',
  ];
}

/** `n` `word`s, in the singular for one. */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The batch row: what each query is scored against, per loss. */
function batchText(recipe: TrainingRecipe, accum: number): string {
  const B = recipe.batchSize;
  const n = recipe.negatives ?? 1;
  const rows = `${B} ${recipe.loss && recipe.loss !== 'contrastive' ? 'rows' : 'triplets'} per step (query, positive, ${plural(n, 'hard negative')}${recipe.loss && recipe.loss !== 'contrastive' ? ', teacher labels' : ''})`;
  const micro = accum > 1 ? `; ${accum} such micro-batches per step` : '';
  if (recipe.loss === 'marginmse' || recipe.loss === 'kl')
    return `${rows}; each query is scored against its own positive and its ${plural(n, 'negative')} only (no in-batch negatives)${micro}`;
  return `${rows}; in-batch negatives plus the hard negatives: every query is scored against all ${(1 + n) * B} documents of the batch (every query's positive and negatives)${micro}`;
}

/** The FLOPS row: the documents (positives and every negative column) and the queries, when they are encoded. */
function flopsText(recipe: TrainingRecipe, accum: number): string {
  const B = recipe.batchSize;
  const n = recipe.negatives ?? 1;
  const over = recipe.flopsOver === 'step' ? accum : 1;
  const documents = `FLOPS(documents) over the ${over * (1 + n) * B} documents (the ${over * B} positives and every negative column, ${n} per query, together)`;
  const step = recipe.flopsOver === 'step' ? ' of the whole step' : '';
  const queries = recipe.inferenceFree
    ? 'the queries have none (inference-free: they are not encoded, and lambda_q is unused)'
    : `FLOPS(queries) over the ${over * B} queries`;
  return `sum over the vocabulary of (mean over the batch of the weights)^2: ${documents}${step}; ${queries}`;
}

/** The total loss as trained: the ranking loss, the FLOPS terms the run has, and a trained table's L1. */
function totalLossText(recipe: TrainingRecipe): string {
  if (!recipe.inferenceFree) return 'L = L_rank + lambda_q(t)·FLOPS(queries) + lambda_d(t)·FLOPS(documents)';
  const l1 = recipe.inferenceFree.trained?.l1 ?? 0;
  return l1 > 0
    ? 'L = L_rank + lambda_d(t)·FLOPS(documents) + lambda_l1(t)·L1(queries), L1(queries) the mean over the batch of the ' +
        "query vectors' L1 norms (their tokens' table weights)"
    : 'L = L_rank + lambda_d(t)·FLOPS(documents)';
}

/** The lambdas row: lambda_q only when queries are encoded; a trained table's L1 weight. */
function lambdasText(recipe: TrainingRecipe, ramp: string): string {
  const l1 = recipe.inferenceFree?.trained?.l1 ?? 0;
  const weights = recipe.inferenceFree
    ? `lambda_d = ${formatNumber(recipe.lambdaDocuments)}${l1 > 0 ? `, lambda_l1 = ${formatNumber(l1)}` : ''} (lambda_q unused)`
    : `lambda_q = ${formatNumber(recipe.lambdaQueries)}, lambda_d = ${formatNumber(recipe.lambdaDocuments)}`;
  return `${weights}, ${ramp}`;
}

/** The queries row of an inference-free recipe: the static table, frozen or trained (with its lr and its L1). */
function staticQueriesText(recipe: TrainingRecipe): string {
  const free = recipe.inferenceFree!;
  const idf = 'idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)), 0 for a token in no document';
  if (!free.trained)
    return `inference-free: a query is its tokens weighted by a static, frozen table (${free.queryWeights}; ${idf}), the Router's query route; only documents are encoded, and lambda_q is unused`;
  const l1 = free.trained.l1;
  return (
    `inference-free: a query is its tokens weighted by a static table, initialised from ${free.queryWeights} (${idf}) and trained with the model ` +
    `(special tokens kept at 0) at its own peak learning rate ${formatNumber(queryTableLr(recipe)!)} on the same schedule ` +
    "(sentence-transformers' learning_rate_mapping), the Router's query route; only documents are encoded; " +
    (l1 > 0
      ? `the query vectors carry an L1 of weight ${formatNumber(l1)} (ramped as the lambdas) instead of FLOPS, and lambda_q is unused`
      : 'the queries have no regulariser (no FLOPS, no L1), and lambda_q is unused')
  );
}

function recipeSection(info: ModelCardInfo): string[] {
  const { recipe, steps, data } = info;
  const { schedule, optimizer: o } = recipe;
  const B = recipe.batchSize;
  const warmup = Math.ceil(schedule.warmupRatio * schedule.totalSteps);
  const rampRatio = recipe.flopsRampRatio ?? 1 / 3;
  const ramp = Math.max(1, Math.floor(schedule.totalSteps * rampRatio));
  const accum = microBatches(recipe);
  const epochs = data && data.triplets > 0 ? ` (${((steps * B * accum) / data.triplets).toFixed(3)} epochs of the data)` : '';
  const lambdaRamp =
    rampRatio === 0
      ? 'at full weight from the first step (no ramp)'
      : `each ramped as lambda(t) = lambda * min(1, t / ${ramp})^2 (quadratic over ${rampRatio === 1 / 3 ? 'the first third' : `a fraction ${rampRatio}`} of the steps; t counts from 0)`;
  const tableLr = queryTableLr(recipe);
  const rows: [string, string][] = [
    ['steps trained', `${steps} of ${schedule.totalSteps}${epochs}`],
    ['batch', batchText(recipe, accum)],
    [
      'lengths',
      `queries ${recipe.queryLength} tokens, documents ${recipe.documentLength} tokens (special tokens included; longer texts truncated)`,
    ],
    [
      'optimiser',
      `${describeOptimizer(o)}; ${recipe.maxGradNorm ? `gradients clipped to a global L2 norm of ${recipe.maxGradNorm}` : 'no gradient clipping'}`,
    ],
    ...(accum > 1
      ? [
          [
            'accumulation',
            `${accum} micro-batches of ${B} per step, gradients averaged (each its own candidate pool and FLOPS batch)`,
          ] as [string, string],
        ]
      : []),
    ['dropout', describeDropout(recipe)],
    [
      'learning rate',
      `peak ${formatNumber(schedule.peakLr)}, linear warm-up over ${warmup} step${warmup === 1 ? '' : 's'} (ratio ${schedule.warmupRatio}, rounded up), then linear decay to 0 at step ${schedule.totalSteps}` +
        (tableLr !== undefined ? `; the query table: peak ${formatNumber(tableLr)} on the same schedule` : ''),
    ],
    ['ranking loss', rankingLossText(recipe)],
    ...(recipe.inferenceFree ? [['queries', staticQueriesText(recipe)] as [string, string]] : []),
    ['FLOPS regulariser', flopsText(recipe, accum)],
    ['lambdas', lambdasText(recipe, lambdaRamp)],
    ['total loss', totalLossText(recipe)],
    ['precision', 'fp32 (WebGPU kernels written for splade-lab, forward and backward)'],
    [
      'data order',
      recipe.dataOrder === 'file'
        ? "the file's order, every epoch (no shuffle)"
        : `a seeded shuffle per epoch (seed ${info.seed})`,
    ],
  ];
  return [
    '## Training recipe',
    '',
    'Trained with splade-lab (a WebGPU SPLADE trainer): full fine-tuning of the encoder and the head.',
    '',
    '| setting | value |',
    '|---|---|',
    ...rows.map(([k, v]) => `| ${k} | ${cell(v)} |`),
  ];
}

function dataSection(info: ModelCardInfo): string[] {
  const { data } = info;
  if (!data) return ['## Training data', '', 'Not recorded when this model was saved.'];
  const known = info.datasets?.length
    ? ` It is known as ${info.datasets.map((d) => `[${d}](https://huggingface.co/datasets/${d})`).join(', ')}.`
    : '';
  return [
    '## Training data',
    '',
    `A triplet file (query, positive, negative per line, tab-separated): \`${data.name}\`, ${data.triplets} triplets, ` +
      `CRC-32 of the file \`${crcHex(data.crc32)}\` (zlib.crc32 in Python gives the same number).${known}`,
  ];
}

function evaluationSection(evaluation: readonly CardEvaluation[]): string[] {
  if (evaluation.length === 0) return [];
  const measures = [...new Set(evaluation.flatMap((e) => Object.keys(e.measures)))];
  const value = (x: number | undefined) =>
    x === undefined ? '' : Number.isFinite(x) ? (Math.abs(x) >= 100 ? x.toFixed(1) : x.toFixed(4)) : String(x);
  return [
    '## Evaluation',
    '',
    'Measured by splade-lab (trec_eval definitions) with the saved weights:',
    '',
    `| set | ${measures.map(cell).join(' | ')} |`,
    `|---|${measures.map(() => '---').join('|')}|`,
    ...evaluation.map((e) => `| ${cell(e.set)} | ${measures.map((m) => value(e.measures[m])).join(' | ')} |`),
  ];
}

function usageSection(info: ModelCardInfo): string[] {
  return [
    '## Usage',
    '',
    'With [sentence-transformers](https://www.sbert.net) 5 or later (`pip install -U sentence-transformers`):',
    '',
    '```python',
    'from sentence_transformers import SparseEncoder',
    '',
    'model = SparseEncoder("path/to/this/folder")  # or its Hub id',
    'queries = ["what is the boiling point of water"]',
    'documents = ["Water boils at 100 degrees Celsius at sea level.", "The Nile is a river in Africa."]',
    'query_embeddings = model.encode_query(queries)',
    'document_embeddings = model.encode_document(documents)',
    `print(query_embeddings.shape)  # [1, ${info.base.vocabSize}]`,
    'print(model.similarity(query_embeddings, document_embeddings))  # dot products',
    'print(model.decode(query_embeddings[0], top_k=10))  # the strongest (token, weight) pairs',
    '```',
    '',
    ...(info.recipe.inferenceFree
      ? [
          `Documents are max over tokens of log(1 + ReLU(logits)), padding masked, ${info.base.vocabSize} dimensions ` +
            `(one per vocabulary entry), truncated at ${info.maxSeqLength} tokens. Queries are not encoded (inference-free): ` +
            "the Router's query route (SparseStaticEmbedding) tokenizes them without special tokens, truncated at the " +
            "tokenizer's model_max_length (512 for BERT's), and gives each token once its table weight; splade-lab trained " +
            `them at ${info.recipe.queryLength} tokens, special tokens included.`,
        ]
      : [
          `The vectors are max over tokens of log(1 + ReLU(logits)), padding masked, ${info.base.vocabSize} dimensions ` +
            `(one per vocabulary entry); texts are truncated at ${info.maxSeqLength} tokens.`,
        ]),
    '',
    'Search engines: `splade-lab encode --model <this folder> --in records.jsonl --out vectors.jsonl --format anserini` ' +
      'writes Anserini JsonVectorCollection lines (token -> round(100 w)); `--format qdrant` writes Qdrant sparse vectors ' +
      '(`indices`/`values`, for a collection with a sparse vector field and a dot-product search); `--format es` writes ' +
      'Elasticsearch/OpenSearch `rank_features`.',
  ];
}

/** The model card (README.md) of a SparseEncoder folder saved by splade-lab. */
export function modelCard(info: ModelCardInfo): string {
  if (!(info.k > 0) || !Number.isFinite(info.k)) throw new RangeError(`modelCard: k must be a positive number, got ${info.k}`);
  const title =
    info.modelName ?? `SPLADE model from ${info.base.hubId ?? info.base.name}, head divided by k = ${formatNumber(info.k)}`;
  const sections = [
    frontMatter(info),
    [
      `# ${title}`,
      '',
      'A [sentence-transformers](https://www.sbert.net) SparseEncoder ' +
        (info.recipe.inferenceFree
          ? '(inference-free SPLADE: a Router whose query route is a static table of token weights, SparseStaticEmbedding, and whose document route is MLMTransformer, then SpladePooling with max pooling and ReLU) '
          : '(SPLADE: MLMTransformer, then SpladePooling with max pooling and ReLU) ') +
        `that maps texts to ${info.base.vocabSize}-dimensional sparse vectors scored by dot product, for sparse retrieval.`,
      '',
      `- **Base model:** ${baseLine(info)}`,
      `- **Head divided by:** k = ${formatNumber(info.k)} before training (${info.base.tiedHead ? 'tied head: the shared matrix' : 'untied head: the decoder matrix'})`,
      `- **Maximum sequence length:** ${info.maxSeqLength} tokens`,
      `- **Output dimensionality:** ${info.base.vocabSize} (sparse)`,
      '- **Similarity function:** dot product',
      `- **Steps trained:** ${info.steps}`,
    ],
    correctionSection(info),
    recipeSection(info),
    dataSection(info),
    evaluationSection(info.evaluation ?? []),
    usageSection(info),
    [
      '## Citation',
      '',
      'The correction: "Rescaling MLM-Head for Neural Sparse Retrieval" (Jang, Hong, Turner, Lim; arXiv 2606.18811, 2026). ' +
        'SPLADE: Formal et al., "SPLADE v2" (arXiv 2109.10086) and "From Distillation to Hard Negative Sampling" (arXiv 2205.04733).',
    ],
  ];
  return (
    sections
      .filter((s) => s.length > 0)
      .map((s) => s.join('\n'))
      .join('\n\n') + '\n'
  );
}

/**
 * The ranking loss of a recipe, as the card states it: its candidates, its formula and mean, its temperature and why
 * (with sentence-transformers' name for the same loss).
 */
function rankingLossText(recipe: TrainingRecipe): string {
  const n = recipe.negatives ?? 1;
  const B = recipe.batchSize;
  if (recipe.loss === 'marginmse')
    return (
      `MarginMSE: L_rank = mean over the ${B}·${n} (query, negative) pairs of (s(q, pos) - s(q, neg_i) - m_i)^2, m_i the teacher's margin ` +
      `(score lists [pos, neg_1..n] taken as pos - neg_i); each query against its own positive and ${plural(n, 'negative')} only ` +
      "(sentence-transformers' SparseMarginMSELoss)"
    );
  const T = formatNumber(recipe.tau);
  if (recipe.loss === 'kl') {
    const why =
      recipe.tau === KL_TEMPERATURE
        ? `T = ${KL_TEMPERATURE} is sentence-transformers' SparseDistillKLDivLoss default and splade-lab's for this loss`
        : `sentence-transformers' SparseDistillKLDivLoss defaults to T = ${KL_TEMPERATURE}, as splade-lab does`;
    return (
      `KL divergence: L_rank = T^2 · mean over the ${B} queries of KL(softmax(teacher / T) ‖ softmax(student / T)) over the query's own ` +
      `${1 + n} candidates [positive, negative_1..${n}], at temperature T = ${T} (${why}; sentence-transformers' SparseDistillKLDivLoss)`
    );
  }
  const why = recipe.tau === CONTRASTIVE_TEMPERATURE ? "tau = 1 is the paper's" : `the paper's tau is ${CONTRASTIVE_TEMPERATURE}`;
  return (
    `in-batch contrastive loss: L_rank = mean over the ${B} queries of -log softmax(s(q, d) / tau) at the query's positive, over all ` +
    `${(1 + n) * B} documents of the batch, with temperature tau = ${T} (${why}; sentence-transformers' SparseMultipleNegativesRankingLoss with scale ${formatNumber(1 / recipe.tau)})`
  );
}
