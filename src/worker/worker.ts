// The module Web Worker that owns the GPU: a thin comlink adapter from WorkerApi to the application layer, its calls
// grouped by use (model, training, masked-LM training, evaluation, lesson, runs) over one shared state, each answering after its callbacks.
import * as Comlink from 'comlink';
import type { WorkerApi } from './api.ts';
import { evaluationMethods } from './evaluation-methods.ts';
import { lessonMethods } from './lesson-methods.ts';
import { mlmMethods } from './mlm-methods.ts';
import { modelMethods } from './model-methods.ts';
import { withOrderedCallbacks } from './ordered-callbacks.ts';
import { experimentsMethods } from './experiments-methods.ts';
import { WorkerState } from './state.ts';
import { trainingMethods } from './training-methods.ts';

const state = new WorkerState();
// every call answers after the page has received each progress message it sent (ordered-callbacks.ts)
const api: WorkerApi = withOrderedCallbacks({
  ...modelMethods(state),
  ...trainingMethods(state),
  ...mlmMethods(state),
  ...evaluationMethods(state),
  ...lessonMethods(state),
  ...experimentsMethods(),
});
Comlink.expose(api);
