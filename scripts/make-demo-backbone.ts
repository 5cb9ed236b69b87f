// Puts the bundled demo backbone into public/demo/: the committed checkpoint of scripts/data/demo-backbone/ (a tiny BERT
// with the bert-base-uncased vocabulary, pretrained by splade-lab's masked-LM training on WordNet 3.1 glosses; made by
// `npm run demo-pretrain`) with its tokenizer files, and the head's row norms and anisotropy (float64 reference) for the
// page to show when there is no WebGPU. Files already as they should be are left alone and the others are replaced
// whole (written aside, then renamed), so that two suites making it at once never see a half-written file.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { anisotropy, headRowNorms, sampleRowPairs, summarizeNorms } from '../src/kernels/reference/head-stats.ts';
import { readSafetensors } from '../src/io/formats/safetensors.ts';
import { parseModelConfig } from '../src/model/config.ts';
import { mapHuggingFaceTensors } from '../src/model/weights.ts';
import { decoderWeightName } from '../src/model/layout.ts';
import { DEMO_STATS_FILE, type DemoHeadNorms } from '../src/ui/model/demo-backbone.ts';

const outDir = fileURLToPath(new URL('../public/demo/', import.meta.url));
const sourceDir = fileURLToPath(new URL('./data/demo-backbone/', import.meta.url));
const vocabSource = fileURLToPath(new URL('./data/bert-base-uncased-vocab.txt', import.meta.url));
/** Seed and pair count of the anisotropy sample: HeadStats' defaults, so the page's GPU figure matches this one. */
const ANISOTROPY_SEED = 1;
const ANISOTROPY_PAIRS = 2000;

/** Puts `bytes` at `path` unless they are there already; a reader sees the old file or the new one, never a part. */
function place(path: string, bytes: Uint8Array | string): void {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  if (existsSync(path) && Buffer.compare(readFileSync(path), data) === 0) return;
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, data);
  renameSync(aside, path);
}

function main(): void {
  const config = JSON.parse(readFileSync(`${sourceDir}config.json`, 'utf8')) as Record<string, unknown>;
  const weights = new Uint8Array(readFileSync(`${sourceDir}model.safetensors`));
  mkdirSync(outDir, { recursive: true });
  place(`${outDir}config.json`, readFileSync(`${sourceDir}config.json`));
  place(`${outDir}model.safetensors`, weights);
  place(`${outDir}WordNet-LICENSE.txt`, readFileSync(`${sourceDir}WordNet-LICENSE.txt`));
  place(`${outDir}vocab.txt`, readFileSync(vocabSource));
  place(
    `${outDir}tokenizer_config.json`,
    JSON.stringify({ do_lower_case: true, tokenizer_class: 'BertTokenizer' }, null, 2) + '\n',
  );

  const model = parseModelConfig(config, { source: 'demo' });
  const tensors = readSafetensors(weights, `${sourceDir}model.safetensors`).tensors;
  const head = mapHuggingFaceTensors(model, tensors).params.get(decoderWeightName(model));
  if (!head) throw new Error('make-demo-backbone: the demo checkpoint has no decoder matrix');
  const W = Float64Array.from(head.data);
  const rowNorms = headRowNorms(W, model.vocabSize, model.hidden);
  const norms: DemoHeadNorms = {
    provenance:
      'demo backbone (pretrained by splade-lab on WordNet 3.1 glosses), float64 reference computed when the site was built',
    summary: summarizeNorms(rowNorms),
    anisotropy: anisotropy(W, model.hidden, sampleRowPairs(model.vocabSize, ANISOTROPY_PAIRS, ANISOTROPY_SEED)),
    norms: Array.from(rowNorms, (n) => Number(n.toPrecision(6))),
  };
  place(`${outDir}${DEMO_STATS_FILE}`, JSON.stringify(norms));
  const mean = norms.norms.reduce((a, b) => a + b, 0) / norms.norms.length;
  const size = statSync(`${outDir}model.safetensors`).size;
  console.log(
    `demo backbone: ${outDir} (${(size / 2 ** 20).toFixed(1)} MiB, V=${model.vocabSize}, d=${model.hidden}, mean row norm ${mean.toFixed(3)})`,
  );
}

main();
