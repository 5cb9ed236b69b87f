// Sweep plans in the page (IndexedDB through idb-keyval): saved after every finished run, so that a reloaded tab finds
// the unfinished sweep of the loaded model and data and resumes its queue.
import { createStore, entries, get, set, type UseStore } from 'idb-keyval';
import type { DataFingerprint } from '../../contract/training/training-report.ts';
import { nextSweepRun, type SweepPlan, type SweepStore } from '../../contract/experiments/sweep-plan.ts';
import { checkSweepPlan } from '../../contract/experiments/stored-records.ts';
let store: UseStore | null = null;

function sweeps(): UseStore {
  store ??= createStore('splade-lab-sweeps', 'sweeps');
  return store;
}

export const idbSweepStore: SweepStore = {
  async get(id) {
    const plan = await get<unknown>(id, sweeps());
    return plan === undefined
      ? null
      : checkSweepPlan(plan, `sweep "${id}" in this browser's storage`, 'Its runs are kept; start the sweep again');
  },
  async put(plan) {
    await set(plan.id, plan, sweeps());
  },
};

/** The newest sweep of this model and data with runs left to train, or null. */
export async function pendingSweep(modelKey: string, data: DataFingerprint): Promise<SweepPlan | null> {
  const plans = (await entries<string, SweepPlan>(sweeps())).map(([, plan]) => plan);
  const mine = plans.filter(
    (p) =>
      p.modelKey === modelKey && p.data.crc32 === data.crc32 && p.data.triplets === data.triplets && nextSweepRun(p) !== null,
  );
  return mine.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
}
