// The page's model names beyond the presets (src/contract/model/model-presets.ts): the bundled demo, picked files, runs.
import { presetByKey } from '../../worker/api.ts';
import { PAPER_TABLE1 } from './paper-table1-data.ts';

/** URL name of the bundled backbone. */
export const DEMO_MODEL = 'demo';

export const DEMO_LABEL = 'demo backbone (a tiny BERT pretrained by splade-lab on WordNet glosses, large-norm head)';

/** URL model name of picked files: a link cannot carry them. */
export const LOCAL_MODEL = 'local';

/** URL model name of a run's trained model ("run:<id>"): it lives in this browser's IndexedDB. */
export const RUN_MODEL_PREFIX = 'run:';
/** URL model name of a masked-LM run's trained model ("mlm:<run key>"): it lives in this browser's IndexedDB too. */
export const MLM_MODEL_PREFIX = 'mlm:';

/** A URL model name kept in this browser (a run's or a masked-LM run's trained model): its kind and key, else null. */
export function storedModel(model: string): { kind: 'run' | 'mlm'; id: string } | null {
  if (model.startsWith(RUN_MODEL_PREFIX)) return { kind: 'run', id: model.slice(RUN_MODEL_PREFIX.length) };
  if (model.startsWith(MLM_MODEL_PREFIX)) return { kind: 'mlm', id: model.slice(MLM_MODEL_PREFIX.length) };
  return null;
}

/** Whether a URL model name is a Hub id (not the demo, a preset key, picked files or a stored model). */
export function isHubId(model: string): boolean {
  return model !== DEMO_MODEL && model !== LOCAL_MODEL && !storedModel(model) && !presetByKey(model);
}

/** The Table 1 row matching a preset key or Hub id (bert-base-uncased and friends match by name). */
export function paperRowFor(model: string): string | null {
  const preset = presetByKey(model);
  if (preset) return preset.paperRow;
  const name = (model.split('/').pop() ?? model).toLowerCase();
  return PAPER_TABLE1.find((row) => row.backbone.toLowerCase() === name)?.backbone ?? null;
}
