// The CLI's way onto the GPU for forward-only commands (inspect, eval, encode): a Node GPU context and the
// application layer's model session of a folder or Hub id, closed together.
import type { GpuContext } from '../../app/platform/platform.ts';
import { openModelSession, type ModelSession, type ModelSessionOptions } from '../../app/model/model-session.ts';
import { modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { printable } from '../../util/printable.ts';

/** Runs `use` with `argument` opened on a fresh GPU context; everything is freed afterwards. */
export async function withModelSession<T>(
  argument: string,
  label: string,
  options: ModelSessionOptions,
  use: (session: ModelSession, ctx: GpuContext) => Promise<T>,
): Promise<T> {
  const ref = await modelRefFromArgument(argument);
  const ctx = await nodePlatform.acquireGpu(label);
  try {
    const session = await openModelSession(ctx, nodePlatform, ref, options);
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
