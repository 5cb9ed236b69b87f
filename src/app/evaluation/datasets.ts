// Retrieval sets for evaluation, once for the page and the CLI: a BEIR folder (corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv) wherever the platform finds its files, or a NanoBEIR set (Parquet) from the Hub's dataset
// repositories, with download progress and cancel.
import type { ReadOptions } from '../../io/file-source.ts';
import { loadBeir } from '../../io/beir/beir.ts';
import { loadNanoBeir } from '../../io/beir/nanobeir.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { crc32 } from '../../util/crc32.ts';
import { InvalidRequestError } from '../../contract/limits.ts';
import { filesRefName, type FilesRef, type Platform } from '../platform/platform.ts';
import type { DatasetSummary } from '../../contract/evaluation/results.ts';

export type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';

import { NANOBEIR_SETS } from '../../contract/evaluation/measures.ts';

export { NANOBEIR_SETS } from '../../contract/evaluation/measures.ts';

/** The Hub account that publishes them (datasets zeta-alpha-ai/Nano<name>). */
const NANOBEIR_OWNER = 'zeta-alpha-ai';

/** Where a retrieval set comes from. */
export type DatasetRef =
  | { kind: 'beir'; files: FilesRef; split?: string; /** Shown name (default: where the files are). */ name?: string }
  | { kind: 'nanobeir'; set: string; /** A Hub mirror or a test server. */ hubUrl?: string };

/** How results name a set: "NanoSciFact", or the BEIR folder's name. */
export function datasetName(ref: DatasetRef): string {
  return ref.kind === 'nanobeir' ? `Nano${ref.set}` : (ref.name ?? filesRefName(ref.files));
}

/** The NanoBEIR sets named by `selection`: "all", or names separated by commas ("SciFact,NFCorpus"; case does not matter). */
export function nanoBeirSelection(selection: string): string[] {
  if (selection.trim().toLowerCase() === 'all') return [...NANOBEIR_SETS];
  const names = selection
    .split(',')
    .map((part) => part.trim().replace(/^nano/i, ''))
    .filter(Boolean);
  if (names.length === 0) throw new InvalidRequestError(`name NanoBEIR sets or "all" (${NANOBEIR_SETS.join(', ')})`);
  return names.map((name) => {
    const found = NANOBEIR_SETS.find((set) => set.toLowerCase() === name.toLowerCase());
    if (!found)
      throw new InvalidRequestError(`"${name}" is not a NanoBEIR set; the sets are ${NANOBEIR_SETS.join(', ')} (or "all")`);
    return found;
  });
}

/** Reads a retrieval set; `options` carry download progress and a cancel signal. */
export async function openDataset(platform: Platform, ref: DatasetRef, options: ReadOptions = {}): Promise<RetrievalDataset> {
  if (ref.kind === 'beir') return loadBeir(await platform.files(ref.files), ref.split ?? 'test', datasetName(ref), options);
  const files = await platform.files({
    kind: 'hub',
    repoType: 'dataset',
    id: `${NANOBEIR_OWNER}/${datasetName(ref)}`,
    hubUrl: ref.hubUrl,
  });
  return loadNanoBeir(files, datasetName(ref), undefined, options);
}

export type { DatasetSummary } from '../../contract/evaluation/results.ts';

export function summarizeDataset(dataset: RetrievalDataset): DatasetSummary {
  let judgments = 0;
  for (const docs of dataset.qrels.values()) judgments += docs.size;
  return {
    name: dataset.name,
    documents: dataset.corpusIds.length,
    queries: dataset.queryIds.length,
    judgments,
    warnings: dataset.warnings,
  };
}

/** A short content fingerprint of picked files (CRC-32 over their names and bytes), so two picked sets never share a name. */
export async function filesFingerprint(files: readonly File[]): Promise<string> {
  let crc = 0;
  for (const file of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    crc = crc32(new TextEncoder().encode(file.name), crc);
    crc = crc32(new Uint8Array(await file.arrayBuffer()), crc);
  }
  return crc.toString(16).padStart(8, '0').slice(0, 6);
}
