// The backbones offered by name in the page's picker and accepted by the CLI's --model: a short key per Hub repository.

export interface ModelPreset {
  /** Short name used in the URL (?model=bert-tiny) and on the command line. */
  key: string;
  /** Hugging Face Hub repository id. */
  hubId: string;
  label: string;
  /** Row of the paper's Table 1 for this backbone (or its family), when there is one. */
  paperRow: string | null;
}

export const MODEL_PRESETS: readonly ModelPreset[] = [
  { key: 'bert-tiny', hubId: 'prajjwal1/bert-tiny', label: 'bert-tiny (4M)', paperRow: null },
  { key: 'bert-mini', hubId: 'prajjwal1/bert-mini', label: 'bert-mini (11M)', paperRow: null },
  {
    key: 'bert-base-uncased',
    hubId: 'google-bert/bert-base-uncased',
    label: 'bert-base-uncased (110M)',
    paperRow: 'bert-base-uncased',
  },
  { key: 'albert-base-v2', hubId: 'albert/albert-base-v2', label: 'albert-base-v2 (11M)', paperRow: 'albert-base-v2' },
  {
    key: 'distilbert-base-uncased',
    hubId: 'distilbert-base-uncased',
    label: 'distilbert-base-uncased (67M)',
    paperRow: 'distilbert-base-uncased',
  },
  { key: 'gte-en-mlm-base', hubId: 'Alibaba-NLP/gte-en-mlm-base', label: 'gte-en-mlm-base (137M)', paperRow: 'gte-en-mlm-base' },
  { key: 'roberta-base', hubId: 'FacebookAI/roberta-base', label: 'roberta-base (125M)', paperRow: 'roberta-base' },
  {
    key: 'xlm-roberta-base',
    hubId: 'FacebookAI/xlm-roberta-base',
    label: 'xlm-roberta-base (278M, 250k vocabulary)',
    paperRow: null,
  },
  { key: 'ModernBERT-base', hubId: 'answerdotai/ModernBERT-base', label: 'ModernBERT-base (150M)', paperRow: 'ModernBERT-base' },
  { key: 'ettin-encoder-17m', hubId: 'jhu-clsp/ettin-encoder-17m', label: 'ettin-encoder-17m', paperRow: null },
  { key: 'ettin-encoder-32m', hubId: 'jhu-clsp/ettin-encoder-32m', label: 'ettin-encoder-32m', paperRow: null },
  {
    key: 'ettin-encoder-150m',
    hubId: 'jhu-clsp/ettin-encoder-150m',
    label: 'ettin-encoder-150m',
    paperRow: 'ettin-encoder-150m',
  },
];

export function presetByKey(key: string): ModelPreset | undefined {
  return MODEL_PRESETS.find((preset) => preset.key === key);
}

/** The Hub id a model name stands for: a preset's repository, or the name itself (any Hub id). */
export function hubIdFor(model: string): string {
  return presetByKey(model)?.hubId ?? model;
}
