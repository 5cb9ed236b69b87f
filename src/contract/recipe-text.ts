// How a recipe is told in words and counted, for the page's Runs tab, the CLI and model cards.
export { describeOptimizer } from './optimizer-settings.ts';
export { describeDropout, microBatches } from './recipe-facts.ts';
