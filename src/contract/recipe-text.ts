// How a recipe is told in words and counted, for the page's Runs tab, the CLI and model cards (re-exported from the
// training layer so that the adapters above import app/ only).
export { describeOptimizer } from './optimizer-settings.ts';
export { describeDropout, microBatches } from './recipe-facts.ts';
