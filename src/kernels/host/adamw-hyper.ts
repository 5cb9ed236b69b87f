// One AdamW step's constants, as the kernel (src/kernels/adamw.ts) and its float64 reference take them.
import type { AdamWMoments } from '../../contract/training/optimizer-settings.ts';

/** One step's constants: the recipe's moments and decay, and this step's learning rate. */
export interface AdamWHyper extends AdamWMoments {
  lr: number;
}
