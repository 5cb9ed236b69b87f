// The CLI's way onto the GPU for forward-only commands (inspect, eval, encode): a Node GPU context and the
// application layer's model session of a folder or Hub id, closed together.
import type { GpuContext } from '../../app/platform/platform.ts';
import { openModelSession, type ModelSession, type ModelSessionOptions } from '../../app/model/model-session.ts';
import { checkModelRef } from '../../app/model/open-model.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { printable } from '../../util/printable.ts';

/** `--query-model`: the query side of an inference-free model, named apart from the model (every forward command). */
export const QUERY_MODEL_OPTION = {
  'query-model': {
    value: 'dir-or-hub-id',
    help:
      "queries by this static table instead: a folder or Hub id with OpenSearch's idf.json beside a tokenizer " +
      '(opensearch-neural-sparse-tokenizer-v1), or an inference-free model whose query route is taken',
  },
} as const;

export interface CliSessionOptions extends ModelSessionOptions {
  /** `--query-model`'s argument, when given. */
  queryModel?: string;
  /**
   * Other model arguments the command will open after this one (audit's --against): each is checked as it would open
   * (config.json, too large for the device, its tokenizer) before this model is read, so that a bad one fails at once.
   */
  checkFirst?: string[];
}

/** Runs `use` with `argument` opened on a fresh GPU context; everything is freed afterwards. */
export async function withModelSession<T>(
  argument: string,
  label: string,
  options: CliSessionOptions,
  use: (session: ModelSession, ctx: GpuContext) => Promise<T>,
): Promise<T> {
  const ref = await modelRefFromArgument(argument);
  const { queryModel, checkFirst = [], ...sessionOptions } = options;
  const others = await Promise.all(checkFirst.map((other) => modelRefFromArgument(other)));
  const querySource = queryModel ? await nodePlatform.files(await modelRefFromArgument(queryModel)) : undefined;
  const ctx = await nodePlatform.acquireGpu(label);
  try {
    for (const other of others) await checkModelRef(nodePlatform, other, { limits: ctx.limits });
    const session = await openModelSession(ctx, nodePlatform, ref, {
      ...sessionOptions,
      ...(querySource ? { queryModel: querySource } : {}),
    });
    for (const note of session.model.notes) process.stderr.write(`note: ${printable(note)}\n`);
    try {
      return await use(session, ctx);
    } finally {
      session.destroy();
    }
  } finally {
    ctx.destroy();
  }
}
