// A masked-LM run from the head divided by k (the page's "Head divided by k first"): the head is measured k times
// shorter before the first step, the saved model's card says it started divided, a resume must ask for the same k,
// and a k out of range is refused before anything is read.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openModelRef } from '../../../src/app/model/open-model.ts';
import { nodePlatform } from '../../../src/app/platform/platform-node.ts';
import { mlmRun } from '../../../src/app/training/mlm.ts';
import { mlmSourceFromBytes } from '../../../src/app/training/mlm-source.ts';
import { planMlm, type MlmRequest } from '../../../src/contract/training/mlm-request.ts';
import type { HeadGrowth } from '../../../src/contract/training/mlm-report.ts';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { Random } from '../../../src/util/random.ts';
import { TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

let root: string;
let ctx: GpuContext;
const TEXT = (() => {
  const random = new Random(3);
  const line = () => Array.from({ length: 8 }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' ');
  return new TextEncoder().encode(Array.from({ length: 20 }, line).join('\n') + '\n');
})();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-mlm-divided-'));
  await writeTinySpladeModel(join(root, 'bert'), 'bert', {});
  ctx = await nodePlatform.acquireGpu('mlm divided head test');
});
afterAll(async () => {
  ctx?.destroy();
  await rm(root, { recursive: true, force: true });
});

const REQUEST: MlmRequest = { steps: 1, batchSize: 2, maxLength: 16, layout: 'grouped', checkpointEvery: 1, resume: false };

/** One masked-LM run of the tiny BERT into `run`; the head measured before its first step and after it. */
async function train(run: string, request: MlmRequest): Promise<HeadGrowth[]> {
  const heads: HeadGrowth[] = [];
  await mlmRun(ctx, nodePlatform, {
    model: () => openModelRef(nodePlatform, { kind: 'folder', path: join(root, 'bert') }, { limits: ctx.limits }),
    source: (asked, model) =>
      mlmSourceFromBytes(TEXT, 'text.txt', 'text', asked, { tokenizer: model.tokenizer, config: model.config }),
    run: join(root, run),
    request,
    onEvent: (event) => void (event.kind === 'head' && heads.push(event.growth)),
  });
  return heads;
}

describe('masked-LM training from a divided head', () => {
  it('starts from the head k times shorter, and its model card says so', async () => {
    const [asLoaded] = await train('k1', REQUEST);
    const [divided] = await train('k4', { ...REQUEST, k: 4 });
    expect(divided.step).toBe(0);
    expect(divided.meanRowNorm).toBeCloseTo(asLoaded.meanRowNorm / 4, 5);
    expect(divided.p99RowNorm).toBeCloseTo(asLoaded.p99RowNorm / 4, 5);
    const card = await readFile(join(root, 'k4', 'model', 'README.md'), 'utf8');
    expect(card).toMatch(/Started from: .*its MLM head divided by k = 4/);
    expect(await readFile(join(root, 'k1', 'model', 'README.md'), 'utf8')).not.toMatch(/divided by k/);
  });

  it('resumes only with the k it started with', async () => {
    await expect(train('k4', { ...REQUEST, resume: true })).rejects.toThrow(
      /made by another run.*:\n {2}k: checkpoint 4, now 1$/,
    );
  });

  it('refuses a k out of range before anything is read, and takes 1 when none is given', () => {
    expect(() => planMlm({ ...REQUEST, k: 0 }, 10)).toThrow(/The head divisor k must be/);
    expect(planMlm(REQUEST, 10).k).toBe(1);
  });
});
