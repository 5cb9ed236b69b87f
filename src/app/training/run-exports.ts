// What a user takes away from a run, once for the page and the CLI: the trained model as a zip of its
// sentence-transformers SparseEncoder folder, and the run's history (every report) as JSON and CSV.
import { zipSync } from 'fflate';
import type { Platform } from '../platform/platform.ts';
import type { ExportFile, RunRecord } from '../../contract/experiments/runs.ts';

const HISTORY_COLUMNS = [
  'step',
  'total',
  'rank',
  'flopsQueries',
  'flopsDocuments',
  'lr',
  'lambdaQueries',
  'lambdaDocuments',
  'activeQueries',
  'activeDocuments',
  'msPerStep',
] as const;

/** A name safe in any file system, from a run's model, k and lambdas. */
export function runFileStem(record: RunRecord): string {
  const name = record.model.name.replace(/[^\w.-]+/g, '_').slice(0, 60);
  return `${name}-k${record.k}-lq${record.recipe.lambdaQueries}-ld${record.recipe.lambdaDocuments}`;
}

/** The record as JSON: backbone, k, recipe, data fingerprint, every report, checkpoint, saved model, evaluations. */
export function runHistoryJson(record: RunRecord): ExportFile {
  return {
    name: `${runFileStem(record)}.json`,
    type: 'application/json',
    bytes: new TextEncoder().encode(JSON.stringify(record, null, 1) + '\n'),
  };
}

/** One CSV row per report (1-based steps), the columns named in the header. */
export function runHistoryCsv(record: RunRecord): ExportFile {
  const rows = record.reports.map((r) => HISTORY_COLUMNS.map((c) => (c === 'step' ? r.step + 1 : r[c])).join(','));
  return {
    name: `${runFileStem(record)}.csv`,
    type: 'text/csv',
    bytes: new TextEncoder().encode([HISTORY_COLUMNS.join(','), ...rows].join('\n') + '\n'),
  };
}

/** Files as a zip archive, each under `folder/`. */
export function zipFiles(files: Map<string, Uint8Array>, folder: string): Uint8Array {
  return zipSync(Object.fromEntries([...files].map(([path, bytes]) => [`${folder}/${path}`, bytes])), { level: 6 });
}

/** The run's trained model (all files of its SparseEncoder folder) as a zip. */
export async function runModelZip(platform: Platform, record: RunRecord): Promise<ExportFile> {
  const source = await platform.files({ kind: 'run', id: record.id });
  if (!record.savedModel) throw new Error(`Run "${record.id}" has no saved model yet (it has not finished).`);
  const files = new Map<string, Uint8Array>();
  for (const name of record.savedModel.files) {
    const bytes = await source.readFile(name);
    if (!bytes) throw new Error(`${source.label}: ${name} is missing; the saved model is incomplete.`);
    files.set(name, bytes);
  }
  const stem = runFileStem(record);
  return { name: `${stem}.zip`, type: 'application/zip', bytes: zipFiles(files, stem) };
}

/**
 * A finished run's model as one ONNX file (export-onnx's graph: ids and mask in, the SPLADE vector out): the saved
 * model's head is already divided by the run's k, so the file divides by 1.
 */
export async function runModelOnnx(platform: Platform, record: RunRecord): Promise<ExportFile> {
  if (!record.savedModel) throw new Error(`Run "${record.id}" has no saved model yet (it has not finished).`);
  // loaded when asked: the ONNX writer (protobufjs) stays out of the worker's start-up
  const { exportOnnx, ONNX_DEFAULT_OPSET } = await import('../model/export-onnx.ts');
  const exported = await exportOnnx(platform, { kind: 'run', id: record.id }, { k: 1, opset: ONNX_DEFAULT_OPSET });
  return { name: `${runFileStem(record)}.onnx`, type: 'application/octet-stream', bytes: exported.bytes };
}
