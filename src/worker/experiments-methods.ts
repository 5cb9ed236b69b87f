// The worker's calls over kept runs: the runs table (with the storage the site uses), deleting a run with its
// checkpoints and saved model, and its exports (the model as a zip or an ONNX file, the history as JSON or CSV).
import { browserPlatform } from '../app/platform/platform-browser.ts';
import { runHistoryCsv, runHistoryJson, runModelOnnx, runModelZip } from '../app/training/run-exports.ts';
import { idbRunCatalog } from '../app/platform/run-store-idb.ts';
import type { WorkerApi } from './api.ts';

export function experimentsMethods(): Pick<WorkerApi, 'runs' | 'deleteRun' | 'storageUsed' | 'exportRun'> {
  return {
    runs: () => idbRunCatalog.list(),
    deleteRun: (id) => idbRunCatalog.remove(id),
    storageUsed: () => idbRunCatalog.usedBytes(),
    async exportRun(id, what) {
      const record = await idbRunCatalog.get(id);
      if (!record) throw new Error(`There is no run "${id}" in this browser.`);
      if (what === 'json') return runHistoryJson(record);
      if (what === 'csv') return runHistoryCsv(record);
      if (what === 'onnx') return runModelOnnx(browserPlatform, record);
      return runModelZip(browserPlatform, record);
    },
  };
}
