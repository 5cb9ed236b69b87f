// Command-line options the CLI training tests repeat: the tiny model's batch shape, and lambdas that raise alarms.

/** Batches of 4, queries cut at 8 tokens and documents at 16: small enough for the tiny model to train in moments. */
export const TINY_BATCH_SHAPE: readonly string[] = ['--batch', '4', '--query-length', '8', '--doc-length', '16'];

/**
 * Lambdas this large on the tiny vocabulary (about 60 pieces, mostly active) soon dominate the loss, so the health
 * alarms come within a few steps; with the learning rate those tests train at.
 */
export const ALARMING_LAMBDAS: readonly string[] = ['--lr', '3e-2', '--lambda-q', '300', '--lambda-d', '300'];
