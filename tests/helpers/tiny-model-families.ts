// The tiny model written and loaded once per model family, for the tests that check a training step on each backbone.
import { join } from 'node:path';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { loadModel, type LoadedModel } from '../../src/model/load-model.ts';
import { writeTinySpladeModel } from './tiny-splade-model.ts';

/**
 * What makes each family's tiny model take its own paths: ModernBERT's local attention on all but every second layer,
 * GTE's scaled rotary positions, ALBERT's embeddings narrower than the hidden size.
 */
export const TINY_FAMILY_OPTIONS = {
  bert: {},
  modernbert: { localAttention: 4, globalAttnEveryNLayers: 2 },
  gte: { ropeScalingFactor: 2 },
  albert: { embeddingSize: 8 },
};

export type TinyFamily = keyof typeof TINY_FAMILY_OPTIONS;

export interface TinyFamilyModel {
  dir: string;
  loaded: LoadedModel;
}

/** Writes each family's tiny model into `<root>/<family>` and loads it back. */
export async function writeTinyFamilyModels(
  root: string,
  families: readonly TinyFamily[],
): Promise<Record<string, TinyFamilyModel>> {
  const models: Record<string, TinyFamilyModel> = {};
  for (const family of families) {
    const dir = join(root, family);
    await writeTinySpladeModel(dir, family, TINY_FAMILY_OPTIONS[family]);
    models[family] = { dir, loaded: await loadModel(createFolderSource(dir)) };
  }
  return models;
}
