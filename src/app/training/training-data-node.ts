// Node's training data: a path on disk (TSV and JSONL streamed through an open file, Parquet read by row groups) or,
// when no such file exists, a Hub dataset id (the split's Parquet files, SPLADE_LAB_HUB_URL and HF_TOKEN honoured).
import { openRandomAccessFile } from '../../io/random-access-node.ts';
import { statRegularFile } from '../../io/regular-file-node.ts';
import { nodePlatform } from '../platform/platform-node.ts';
import { readHubTrainingData, readTrainingFile, type ReadTrainingData } from './training-data.ts';

export type TrainingDataRead = ReadTrainingData & { where: string };

/** Whether `path` is a file to read; a folder, a device or a FIFO there is refused (reading one fails late or never ends). */
async function isFile(path: string): Promise<boolean> {
  try {
    await statRegularFile(path, '--triplets');
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Reads `value` (a file, else a Hub dataset id) and runs `use` with it; a streamed file is closed after. */
export async function withTrainingData<T>(
  value: string,
  hub: { subset?: string; split?: string },
  use: (read: TrainingDataRead) => Promise<T>,
): Promise<T> {
  if (await isFile(value)) {
    const file = await openRandomAccessFile(value);
    try {
      return await use({ ...(await readTrainingFile(file)), where: value });
    } finally {
      await file.close();
    }
  }
  if (!/^[^/\s]+\/[^/\s]+$/.test(value)) throw new Error(`${value}: no such file, and not a Hub dataset id ("org/name")`);
  const read = await readHubTrainingData(
    nodePlatform,
    { repo: value, ...hub },
    { baseUrl: process.env.SPLADE_LAB_HUB_URL, token: process.env.HF_TOKEN },
  );
  return use({ ...read, where: `${read.summary.name} (${read.paths.join(', ')})` });
}
