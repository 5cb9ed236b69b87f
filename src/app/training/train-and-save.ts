// A whole run, once for the page and the CLI: train (recorded as a run), save the trained model where the platform
// keeps models (never with a NaN or Inf weight), and record how it ended.
import { RunOutcome } from '../../contract/sweep-plan.ts';
import type { GpuContext } from '../../gpu/context.ts';
import type { Platform } from '../platform/platform.ts';
import { saveTrainedModel, trainModel, type TrainOptions } from './train.ts';

export async function trainRun(ctx: GpuContext, platform: Platform, options: TrainOptions): Promise<RunOutcome> {
  const run = await trainModel(ctx, platform, options);
  let saved: RunOutcome['saved'];
  try {
    saved = await saveTrainedModel(platform, options.run, run, { data: options.data.fingerprint });
  } catch (error) {
    await run.close({ failure: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  await run.close({ savedModel: saved });
  return { startStep: run.startStep, step: run.step, msPerStep: run.msPerStep, saved };
}
