// Table 1 of "Rescaling MLM-Head for Neural Sparse Retrieval" (2026): MLM-head row-norm statistics of seven backbones.

export interface PaperHeadRow {
  backbone: string;
  params: string;
  meanNorm: number;
  maxNorm: number;
  anisotropy: number;
}

export const PAPER_TABLE1_SOURCE = 'Jang et al., "Rescaling MLM-Head for Neural Sparse Retrieval", arXiv 2606.18811, Table 1';

export const PAPER_TABLE1: readonly PaperHeadRow[] = [
  { backbone: 'bert-base-uncased', params: '0.10B', meanNorm: 1.401, maxNorm: 2.045, anisotropy: 0.445 },
  { backbone: 'distilbert-base-uncased', params: '0.07B', meanNorm: 1.66, maxNorm: 2.611, anisotropy: 0.532 },
  { backbone: 'albert-base-v2', params: '0.011B', meanNorm: 0.407, maxNorm: 0.737, anisotropy: 0.108 },
  { backbone: 'gte-en-mlm-base', params: '0.10B', meanNorm: 1.278, maxNorm: 1.814, anisotropy: 0.085 },
  { backbone: 'roberta-base', params: '0.10B', meanNorm: 3.645, maxNorm: 4.48, anisotropy: 0.024 },
  { backbone: 'ModernBERT-base', params: '0.10B', meanNorm: 2.553, maxNorm: 4.273, anisotropy: 0.044 },
  { backbone: 'ettin-encoder-150m', params: '0.15B', meanNorm: 2.628, maxNorm: 4.506, anisotropy: 0.036 },
];
