// The backbones the model picker offers by name, and the bundled synthetic demo.
import { PAPER_TABLE1 } from './paper-table1.ts';

export interface ModelPreset {
  /** Short name used in the URL (?model=bert-tiny). */
  key: string;
  /** Hugging Face Hub repository id. */
  hubId: string;
  label: string;
  /** Row of the paper's Table 1 for this backbone (or its family), when there is one. */
  paperRow: string | null;
}

/** URL name of the bundled backbone. */
export const DEMO_MODEL = 'demo';
export const DEMO_LABEL = 'synthetic demo (BERT-style, random weights, large-norm head)';
/** URL model name of picked files: a link cannot carry them. */
export const LOCAL_MODEL = 'local';
/** URL model name of a run's trained model ("run:<id>"): it lives in this browser's IndexedDB. */
export const RUN_MODEL_PREFIX = 'run:';

/** Whether a URL model name is a Hub id (not the demo, a preset key, picked files or a run). */
export function isHubId(model: string): boolean {
  return model !== DEMO_MODEL && model !== LOCAL_MODEL && !model.startsWith(RUN_MODEL_PREFIX) && !presetByKey(model);
}

export const MODEL_PRESETS: readonly ModelPreset[] = [
  { key: 'bert-tiny', hubId: 'prajjwal1/bert-tiny', label: 'bert-tiny (4M)', paperRow: null },
  { key: 'bert-mini', hubId: 'prajjwal1/bert-mini', label: 'bert-mini (11M)', paperRow: null },
  { key: 'distilbert-base-uncased', hubId: 'distilbert-base-uncased', label: 'distilbert-base-uncased (67M)', paperRow: 'distilbert-base-uncased' },
  { key: 'roberta-base', hubId: 'FacebookAI/roberta-base', label: 'roberta-base (125M)', paperRow: 'roberta-base' },
  { key: 'ModernBERT-base', hubId: 'answerdotai/ModernBERT-base', label: 'ModernBERT-base (150M)', paperRow: 'ModernBERT-base' },
  { key: 'ettin-encoder-17m', hubId: 'jhu-clsp/ettin-encoder-17m', label: 'ettin-encoder-17m', paperRow: null },
  { key: 'ettin-encoder-32m', hubId: 'jhu-clsp/ettin-encoder-32m', label: 'ettin-encoder-32m', paperRow: null },
];

export function presetByKey(key: string): ModelPreset | undefined {
  return MODEL_PRESETS.find((preset) => preset.key === key);
}

/** The Hub id a URL model name stands for: a preset's repository, or the name itself (any Hub id). */
export function hubIdFor(model: string): string {
  return presetByKey(model)?.hubId ?? model;
}

/** The Table 1 row matching a preset key or Hub id (bert-base-uncased and friends match by name). */
export function paperRowFor(model: string): string | null {
  const preset = presetByKey(model);
  if (preset) return preset.paperRow;
  const name = (model.split('/').pop() ?? model).toLowerCase();
  return PAPER_TABLE1.find((row) => row.backbone.toLowerCase() === name)?.backbone ?? null;
}
