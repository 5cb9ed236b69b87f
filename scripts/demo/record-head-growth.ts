// Records where long head rows come from (`npm run lesson-head-growth`): the demo backbone with its tied head divided by
// a constant (rows short, as before pretraining grew them), then a short run of splade-lab's masked-LM training on the
// pretraining text, the head's mean row norm and the logit scale measured at every report, and one sentence's SPLADE
// vector before and after. Writes public/lesson/head-growth.json, which the lesson's step 2 plays.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAD_GROWTH_FORMAT, type GrowthTerm, type HeadGrowthTrace } from '../../src/contract/lesson/head-growth-trace.ts';
import { readSafetensors, writeSafetensors } from '../../src/io/formats/safetensors.ts';
import { pretrainingDocuments } from './pretrain-demo-backbone.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = join(root, '.cache', 'head-growth');
const cli = join(root, 'bin', 'splade-lab.mjs');
const demo = join(root, 'public', 'demo');

/** The recorded run, chosen from measurements here: long enough that the rows visibly grow, short enough to rerun. */
export const HEAD_GROWTH_RUN = {
  /** The demo head's rows are divided by this before the run (2.5 -> 0.5: about BERT's embedding scale at init x 3). */
  shrink: 5,
  mlm: { steps: 60, batch: 16, maxLength: 64, lr: 2e-3, warmupRatio: 0.1, seed: 7, reportEvery: 5 },
  sentence: 'the doctor gave the patient a vaccine',
  note:
    'Dividing the head by 5 made its rows short (0.5), and the run then learns as a model does at first: which tokens are ' +
    'frequent. Its vector after 60 steps is full of frequent words (the, a, of), and the rows grow while the largest logit ' +
    'of a predicted token rises: sharper predictions need longer rows. Pretraining for far longer is how real backbones ' +
    "end with long rows: ModernBERT-base at a mean row norm of 2.55, BERT-base at 1.40 (the paper's Table 1).",
} as const;

function main(): void {
  const began = performance.now();
  rmSync(work, { recursive: true, force: true });
  const start = join(work, 'start');
  mkdirSync(start, { recursive: true });
  for (const file of ['config.json', 'vocab.txt', 'tokenizer_config.json']) copyFileSync(join(demo, file), join(start, file));
  const source = join(demo, 'model.safetensors');
  const tensors = readSafetensors(new Uint8Array(readFileSync(source)), source).tensors;
  const name = 'bert.embeddings.word_embeddings.weight';
  const words = tensors.get(name);
  if (!words) throw new Error(`${source} has no ${name}: run npm run demo-backbone first`);
  for (let i = 0; i < words.data.length; i++) words.data[i] /= HEAD_GROWTH_RUN.shrink;
  writeFileSync(join(start, 'model.safetensors'), writeSafetensors(tensors, { format: 'pt' }));

  const corpus = join(work, 'corpus.txt');
  writeFileSync(corpus, pretrainingDocuments().join('\n') + '\n');
  const m = HEAD_GROWTH_RUN.mlm;
  const run = join(work, 'run');
  const args = [cli, 'mlm', '--model', start, '--text', corpus, '--out', run, '--steps', String(m.steps)];
  args.push('--batch', String(m.batch), '--max-length', String(m.maxLength), '--lr', String(m.lr));
  args.push('--warmup-ratio', String(m.warmupRatio), '--seed', String(m.seed), '--report-every', String(m.reportEvery));
  args.push('--checkpoint-every', String(m.steps), '--json');
  const events = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  writeFileSync(join(work, 'mlm.jsonl'), events);
  const trace = growthTrace(events, start, join(run, 'model'));
  writeFileSync(join(root, 'public', 'lesson', 'head-growth.json'), JSON.stringify(trace, null, 1) + '\n');
  const [first, last] = [trace.points[0], trace.points.at(-1)!];
  console.log(
    `head growth: mean row norm ${first.meanRowNorm.toFixed(3)} -> ${last.meanRowNorm.toFixed(3)} over ${last.step} steps, ` +
      `${((performance.now() - began) / 60000).toFixed(1)} min`,
  );
}

/** The run's reports and head measurements, and the sentence before and after. */
export function growthTrace(events: string, before: string, after: string): HeadGrowthTrace {
  const parsed = events
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, number & string>);
  const reports = new Map(parsed.filter((e) => e.event === 'step').map((e) => [e.step, e]));
  const points = parsed
    .filter((e) => e.event === 'head')
    .map((h) => ({
      step: h.step,
      loss: reports.get(h.step)?.loss ?? null,
      meanRowNorm: h.meanRowNorm,
      p99RowNorm: h.p99RowNorm,
      logitScale: reports.get(h.step)?.logitScale ?? null,
    }));
  const { mlm: m, shrink, sentence } = HEAD_GROWTH_RUN;
  return {
    format: HEAD_GROWTH_FORMAT,
    version: 1,
    model: `the demo backbone (a tiny BERT, d = 64, 2 layers, pretrained by splade-lab) with its head divided by ${shrink}`,
    recipe: `${m.steps} steps of ${m.batch} sequences of ${m.maxLength} tokens of WordNet 3.1 glosses, 15% masking, AdamW, peak lr ${m.lr}`,
    points,
    sentence,
    before: topTerms(before, sentence),
    after: topTerms(after, sentence),
    note: HEAD_GROWTH_RUN.note,
  };
}

/** A sentence's 15 heaviest terms under a model folder at k = 1 (through `splade-lab encode` and `tokenize`). */
function topTerms(model: string, sentence: string): GrowthTerm[] {
  const input = join(work, 'sentence.jsonl');
  const output = join(work, 'sentence-vector.jsonl');
  writeFileSync(input, JSON.stringify({ _id: 's', text: sentence }) + '\n');
  execFileSync(process.execPath, [cli, 'encode', '--model', model, '--in', input, '--out', output, '--format', 'qdrant'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tokenized = execFileSync(process.execPath, [cli, 'tokenize', model], { input: sentence + '\n', encoding: 'utf8' });
  const own = new Set((JSON.parse(tokenized) as { ids: number[] }).ids);
  const vocab = readFileSync(join(model, 'vocab.txt'), 'utf8').split('\n');
  // encode's Qdrant points hold the vector under its name (--field, default "splade")
  const { vector } = JSON.parse(readFileSync(output, 'utf8')) as { vector: { splade: { indices: number[]; values: number[] } } };
  const { indices, values } = vector.splade;
  return indices
    .map((id, i) => ({ term: vocab[id], weight: Number(values[i].toFixed(4)), expansion: !own.has(id) }))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, 15);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
