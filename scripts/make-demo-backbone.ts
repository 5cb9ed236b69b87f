// Generates the bundled synthetic demo backbone into public/demo/: a small BERT-style checkpoint (random weights,
// real bert-base-uncased WordPiece vocabulary) whose MLM head has a large mean row norm (2.5, like ModernBERT's).
// Also writes the head's row norms and anisotropy (float64 reference) for the page to show when there is no WebGPU.
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { anisotropy, headRowNorms, sampleRowPairs, summarizeNorms } from '../src/kernels/reference/head-stats.ts';
import { writeSafetensors } from '../src/io/safetensors.ts';
import { parseModelConfig } from '../src/model/config.ts';
import { makeTinyCheckpoint } from '../src/model/tiny-model.ts';
import { mapHuggingFaceTensors } from '../src/model/weights.ts';
import { decoderWeightName } from '../src/model/layout.ts';
import { DEMO_SHAPE, DEMO_STATS_FILE, type DemoHeadNorms } from '../src/ui/model/demo-backbone.ts';

const outDir = fileURLToPath(new URL('../public/demo/', import.meta.url));
const vocabSource = fileURLToPath(new URL('./data/bert-base-uncased-vocab.txt', import.meta.url));
/** Seed and pair count of the anisotropy sample: HeadStats' defaults, so the page's GPU figure matches this one. */
const ANISOTROPY_SEED = 1;
const ANISOTROPY_PAIRS = 2000;

function main(): void {
  const vocabSize = readFileSync(vocabSource, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0).length;
  const { config, tensors } = makeTinyCheckpoint('bert', { ...DEMO_SHAPE, vocabSize });
  const described = { ...config, _name_or_path: 'splade-lab synthetic demo (random weights; not a trained model)' };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}config.json`, JSON.stringify(described, null, 2) + '\n');
  writeFileSync(
    `${outDir}model.safetensors`,
    writeSafetensors(tensors, { format: 'pt', note: 'synthetic demo, random weights' }),
  );
  copyFileSync(vocabSource, `${outDir}vocab.txt`);
  writeFileSync(
    `${outDir}tokenizer_config.json`,
    JSON.stringify({ do_lower_case: true, tokenizer_class: 'BertTokenizer' }, null, 2) + '\n',
  );

  const model = parseModelConfig(config, { source: 'demo' });
  const head = mapHuggingFaceTensors(model, tensors).params.get(decoderWeightName(model));
  if (!head) throw new Error('make-demo-backbone: the generated checkpoint has no decoder matrix');
  const W = Float64Array.from(head.data);
  const rowNorms = headRowNorms(W, model.vocabSize, model.hidden);
  const norms: DemoHeadNorms = {
    provenance: 'synthetic demo backbone, float64 reference computed when the site was built',
    summary: summarizeNorms(rowNorms),
    anisotropy: anisotropy(W, model.hidden, sampleRowPairs(model.vocabSize, ANISOTROPY_PAIRS, ANISOTROPY_SEED)),
    norms: Array.from(rowNorms, (n) => Number(n.toPrecision(6))),
  };
  writeFileSync(`${outDir}${DEMO_STATS_FILE}`, JSON.stringify(norms));
  const mean = norms.norms.reduce((a, b) => a + b, 0) / norms.norms.length;
  const size = statSync(`${outDir}model.safetensors`).size;
  console.log(
    `demo backbone: ${outDir} (${(size / 2 ** 20).toFixed(1)} MiB, V=${vocabSize}, d=${model.hidden}, mean row norm ${mean.toFixed(3)})`,
  );
}

main();
