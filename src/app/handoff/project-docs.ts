// The README.md, requirements.txt and launch.sh of a hand-off project: the steps to run it, how splade-lab's recipe
// maps onto sentence-transformers v5, and where the two differ.

/** Versions the project's Python files were written against (sentence-transformers 5.1.2's sources were read). */
export const PYTHON_PINS = [
  'torch==2.8.0',
  'transformers==4.56.2',
  'sentence-transformers==5.1.2',
  'accelerate==1.10.1',
  'datasets==4.0.0',
];

/** What the project's README needs to know of the hand-off. */
export interface ProjectSummary {
  backbone: { name: string; hubId: string | null; copied: boolean; tiedHead: boolean; architecture: string };
  k: number;
  gpus: number;
  batchSize: number;
  queryLength: number;
  documentLength: number;
  steps: number | null;
  epochs: number | null;
  peakLr: number;
  weightDecay: number;
  /** Global gradient norm clipped to (0: none). */
  maxGradNorm: number;
  /** The run's dropout: the backbone's own probabilities, or one rate for all. */
  dropout: 'config' | number;
  lambdaQueries: number;
  lambdaDocuments: number;
  seed: number;
  data: { file: string; path: string; triplets: number; crc32: number };
  loss: { rank: number; flopsQueries: number; flopsDocuments: number };
}

export function requirementsTxt(): string {
  return (
    [
      '# Pinned for the splade-lab hand-off (sentence-transformers 5; transformers below 5, which drops warmup_ratio).',
      ...PYTHON_PINS,
    ].join('\n') + '\n'
  );
}

export function launchSh(gpus: number): string {
  return [
    '#!/usr/bin/env bash',
    "# Trains on this machine's GPUs, one process each (splade-lab hand-off); extra arguments go to train.py.",
    'set -euo pipefail',
    'cd "$(dirname "$0")"',
    `torchrun --nproc_per_node ${gpus} train.py "$@"`,
    '',
  ].join('\n');
}

function stepsLine(s: ProjectSummary): string {
  const perEpoch = Math.floor(s.data.triplets / (s.batchSize * s.gpus));
  if (s.steps !== null) return `${s.steps} optimiser steps (\`--steps\`)`;
  return `${s.epochs} epoch${s.epochs === 1 ? '' : 's'}: about ${perEpoch} optimiser steps per epoch (${s.data.triplets} triplets / (${s.batchSize} x ${s.gpus} GPUs), last partial batch dropped)`;
}

export function projectReadme(s: ProjectSummary): string {
  const backbone = s.backbone.hubId
    ? `\`${s.backbone.hubId}\` from the Hugging Face Hub (downloaded on first use)`
    : `\`${s.backbone.name}\`, copied into \`backbone/\` (config.json, fp32 model.safetensors, tokenizer files; head not divided)`;
  const global = s.batchSize * s.gpus;
  return [
    '# SPLADE training handed off by splade-lab',
    '',
    `This project trains ${backbone} as a SPLADE model with sentence-transformers v5, with the recipe splade-lab used, ` +
      `its MLM head divided by **k = ${s.k}** before training (${s.backbone.tiedHead ? 'tied head: the shared word-embedding matrix is divided, so the tying is kept' : 'untied head: the decoder matrix is divided'}). ` +
      'Everything it needs is here; the settings are in `splade_lab.json`.',
    '',
    '| file | what |',
    '|---|---|',
    '| `train.py` | the training: SparseEncoder (MLMTransformer + SpladePooling max/relu), head divided by k, SpladeLoss, the Trainer |',
    "| `check_step1.py` | run it first on the GPU machine: the first batch and the step-0 loss parts must equal splade-lab's |",
    "| `expected_step1.json` | splade-lab's first batch (token ids) and its unweighted loss parts at step 0 |",
    '| `splade_data.py` | reads `splade_lab.json` and the triplets exactly as splade-lab does (no torch needed) |',
    `| \`${s.data.path}\` | the training triplets: ${s.data.triplets} from \`${s.data.file}\`, CRC-32 \`${(s.data.crc32 >>> 0).toString(16).padStart(8, '0')}\` (checked before training) |`,
    '| `requirements.txt` | pinned versions |',
    `| \`launch.sh\` | \`torchrun --nproc_per_node ${s.gpus} train.py\` |`,
    ...(s.backbone.copied ? ['| `backbone/` | the backbone as a transformers folder |'] : []),
    '',
    '## Steps',
    '',
    '1. On the GPU machine (Linux, CUDA, Python 3.10-3.12): `python -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt`.',
    "2. `python check_step1.py`: it loads the backbone as `train.py` does, tokenizes splade-lab's first batch with the same " +
      'collator, computes the ranking loss and both FLOPS terms in fp32, and prints `PASS` or `FAIL` with each part. Expected:',
    '',
    `   | part | splade-lab, step 0 |`,
    '   |---|---|',
    `   | rank (in-batch contrastive loss) | ${s.loss.rank} |`,
    `   | flopsQueries (FLOPS of the ${s.batchSize} queries) | ${s.loss.flopsQueries} |`,
    `   | flopsDocuments (FLOPS of the ${2 * s.batchSize} positives and negatives) | ${s.loss.flopsDocuments} |`,
    '',
    '   Pass: |torch - splade-lab| <= 1e-3 + 1e-3 x |splade-lab| for each part (`--rtol`, `--atol`). Both are fp32 GPU sums in ' +
      'different orders; relative differences near 1e-5 are usual, and a failure means another backbone, k, tokenizer or loss.',
    `3. \`bash launch.sh\` (or \`torchrun --nproc_per_node ${s.gpus} train.py\`; \`python train.py\` on one GPU). It trains for ` +
      `${stepsLine(s)}, ${s.batchSize} triplets per GPU and step (${global} per step in all), checkpoints to \`output/checkpoints\` ` +
      '(`--resume` continues), and saves the SparseEncoder in `output/final`. `python train.py --help` lists the switches.',
    '4. Use `output/final` with `SparseEncoder("output/final")` (`encode_query`, `encode_document`, `similarity`), or give it to ' +
      '`splade-lab eval` / `splade-lab encode` (Anserini, Qdrant, Elasticsearch exports).',
    '',
    "## How splade-lab's recipe maps onto sentence-transformers",
    '',
    '| splade-lab | here |',
    '|---|---|',
    '| vector: max over tokens of log(1 + ReLU(logits)), padding masked | `MLMTransformer` + `SpladePooling(pooling_strategy="max", activation_function="relu")` |',
    `| W_head <- W_head / ${s.k} before step 0 | \`divide_head\` in train.py: \`get_output_embeddings().weight.div_(k)\` under no_grad; a tied decoder is the embedding Parameter itself, so both are divided and stay tied (checked against config.tie_word_embeddings) |`,
    '| rank: -1/B sum_i log softmax over the B positives and B negatives of the batch, tau = 1 | `SparseMultipleNegativesRankingLoss(scale=1/tau)`: candidates = positives then negatives, label i, dot product |',
    '| FLOPS(q) = sum_j (mean_i q_ij)^2 over the B queries | `SpladeLoss` query regulariser: `FlopsLoss` on embeddings[0] |',
    '| FLOPS(d) over the 2B positives and negatives together | `SpladeLoss` document regulariser: `FlopsLoss` on positives and negatives concatenated |',
    `| lambda_q = ${s.lambdaQueries}, lambda_d = ${s.lambdaDocuments}, lambda(t) = lambda min(1, t / floor(T/3))^2, t from 0 | \`SpladeRegularizerWeightSchedulerCallback(quadratic, warmup_ratio=1/3)\`: lambda (t / int(T/3))^2 for t < int(T/3), set at the start of global step t (from 0) |`,
    "| total = rank + lambda_q(t) FLOPS(q) + lambda_d(t) FLOPS(d) | the Trainer sums SpladeLoss's parts (it logs the regularisers already multiplied by their current weights) |",
    `| AdamW 0.9/0.999/1e-8, weight decay ${s.weightDecay} on weights and embeddings (not biases and LayerNorms), peak lr ${s.peakLr}, linear warm-up ceil(0.1 T) then linear decay to 0 | \`optim="adamw_torch"\`, \`weight_decay\` (the Trainer leaves biases and LayerNorm weights out too), \`lr_scheduler_type="linear"\`, \`warmup_ratio=0.1\` (transformers rounds up too) |`,
    `| gradients clipped to a global L2 norm of ${s.maxGradNorm || 'none (0: off)'} | \`max_grad_norm\` (\`--max-grad-norm\` overrides it; 0 turns clipping off) |`,
    `| dropout: ${s.dropout === 'config' ? "the backbone's config.json probabilities, on while training" : `every probability set to ${s.dropout}`} | the same, through \`config_args\` when the run set a rate; \`--no-dropout\` sets every one to 0 (dropout masks are random in both, so runs differ in their draws) |`,
    '',
    "The lambda ramp of sentence-transformers is the paper's and splade-lab's: quadratic from 0 over the first third of the " +
      'steps (a third rounded down, at least 1), weight 0 at the first step. So are the learning-rate schedule and the losses: ' +
      '`expected_step1.json` holds the unweighted parts, which are what differ between the two only by arithmetic.',
    '',
    '## Where it differs from splade-lab, and why',
    '',
    '- **Precision**: bf16 mixed precision (fp32 master weights), as the paper trained; splade-lab trains in fp32. `--fp32` switches bf16 off.',
    `- **GPUs**: each GPU's ${s.batchSize} triplets form their own in-batch negatives and FLOPS batch (splade-lab's batch of ${s.batchSize}); gradients are averaged over the ${s.gpus} GPUs (${global} triplets per optimiser step).`,
    "- **Data order**: the Trainer's sampler, seeded with the same seed, not splade-lab's shuffle; the last partial batch of an epoch is dropped (splade-lab wraps into the next epoch). `check_step1.py` feeds splade-lab's first batch itself.",
    "- **Tokenization**: the transformers tokenizer of the same files, truncated to the query and document lengths as splade-lab does (`TripletCollator`); sentence-transformers' own collator would use one length and strip texts.",
    '',
  ].join('\n');
}
