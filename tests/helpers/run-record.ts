// A run record with every field `runs` and the run.json check read, for tests that write run folders by hand.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A finished, evaluated run (k = 2, 4 steps); `overrides` replace its top-level fields. */
export function runRecordFixture(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'run',
    sweep: null,
    model: { name: 'tiny', key: 'tiny', architecture: 'bert', meanRowNorm: 2, rowNorms: null },
    k: 2,
    seed: 1,
    recipe: { batchSize: 2, lambdaQueries: 0.05, lambdaDocuments: 0.003 },
    data: { name: 'triplets.tsv', triplets: 10, crc32: 1 },
    status: 'finished',
    message: '',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    reports: [],
    step: 4,
    trainingMs: 10,
    checkpoint: null,
    savedModel: null,
    evaluations: [
      {
        set: { name: 'set', queries: 1, documents: 2 },
        splade: { metrics: { ndcg_cut_10: 0.5 }, efficiency: { query_active_dims: 3, corpus_active_dims: 4, avg_flops: 1 } },
      },
    ],
    ...overrides,
  };
}

/** Writes `text` as <root>/<name>/run.json and returns the run folder. */
export async function writeRunJson(root: string, name: string, text: string): Promise<string> {
  const folder = join(root, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'run.json'), text);
  return folder;
}
