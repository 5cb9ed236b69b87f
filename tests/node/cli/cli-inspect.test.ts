// `splade-lab inspect`: row norms of a generated checkpoint equal a direct computation, and --k 4 divides them by 4;
// the same model loads through the Hub-id path from a local server in the Hub's URL layout.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { anisotropy, headRowNorms, sampleRowPairs, summarizeNorms } from '../../../src/kernels/reference/head-stats.ts';
import type { Architecture } from '../../../src/contract/model/model-config.ts';
import { makeTinyCheckpoint } from '../../../src/model/tiny-model.ts';
import { runCli } from '../../helpers/cli.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';

const DECODER_NAMES: Record<Architecture, string> = {
  bert: 'bert.embeddings.word_embeddings.weight',
  roberta: 'roberta.embeddings.word_embeddings.weight',
  distilbert: 'distilbert.embeddings.word_embeddings.weight',
  modernbert: 'model.embeddings.tok_embeddings.weight',
  gte: 'new.embeddings.word_embeddings.weight',
  albert: 'albert.embeddings.word_embeddings.weight',
};

let root: string;

let hub: HubServer;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-inspect-'));
  hub = await startHubServer(join(root, 'hub'));
});
afterAll(async () => {
  await hub.close();
  await rm(root, { recursive: true, force: true });
});

async function writeModel(dir: string, architecture: Architecture) {
  const tiny = makeTinyCheckpoint(architecture, {
    seed: 3,
    vocabSize: 301,
    hidden: 16,
    layers: 1,
    heads: 2,
    intermediate: 32,
    headNormScale: 2.5,
  });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), JSON.stringify(tiny.config));
  await writeFile(join(dir, 'model.safetensors'), writeSafetensors(tiny.tensors));
  const decoder = tiny.tensors.get(DECODER_NAMES[architecture])!;
  return { decoder: Float64Array.from(decoder.data), V: decoder.shape[0], d: decoder.shape[1] };
}

describe('splade-lab inspect', () => {
  it.each(['bert', 'roberta', 'distilbert', 'modernbert', 'gte', 'albert'] as const)(
    'reports the %s head norms exactly, before and after --k 4',
    async (arch) => {
      const dir = join(root, arch);
      const { decoder, V, d } = await writeModel(dir, arch);
      const { code, stdout, stderr } = await runCli('inspect', dir, '--k', '4', '--json');
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const report = JSON.parse(stdout);
      expect(report).toMatchObject({ vocabSize: V, hidden: 16, embeddingSize: d, tied: true, k: 4 });
      expect(report.params).toBeGreaterThan(V * d);
      const expected = summarizeNorms(headRowNorms(decoder, V, d));
      expect(expected.mean).toBeGreaterThan(2); // the generated head has large norms
      for (const [key, ours] of [
        ['meanRowNorm', 'mean'],
        ['maxRowNorm', 'max'],
        ['p50', 'p50'],
        ['p99', 'p99'],
      ] as const) {
        expect(report.before[key]).toBeCloseTo(expected[ours], 5);
        expect(report.after[key]).toBeCloseTo(expected[ours] / 4, 5);
      }
      const aniso = anisotropy(decoder, d, sampleRowPairs(V, 2000, 1));
      expect(report.before.anisotropy).toBeCloseTo(aniso, 4);
      expect(report.after.anisotropy).toBeCloseTo(aniso, 4);
    },
  );

  it('loads a Hub id from a server in the Hub URL layout', async () => {
    await writeModel(join(root, 'hub', 'tiny-org', 'tiny-bert'), 'bert');
    process.env.SPLADE_LAB_HUB_URL = hub.baseUrl;
    process.env.SPLADE_LAB_CACHE = join(root, 'cache');
    try {
      const { code, stdout } = await runCli('inspect', 'tiny-org/tiny-bert', '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout).architecture).toBe('BertForMaskedLM');
      expect(hub.requests.some((r) => r.startsWith('/tiny-org/tiny-bert/resolve/main/model.safetensors'))).toBe(true);
    } finally {
      delete process.env.SPLADE_LAB_HUB_URL;
      delete process.env.SPLADE_LAB_CACHE;
    }
  });

  it('says clearly when the folder holds an unsupported architecture', async () => {
    const dir = join(root, 'gpt');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ architectures: ['GPT2LMHeadModel'], model_type: 'gpt2' }));
    await writeFile(join(dir, 'model.safetensors'), writeSafetensors(new Map()));
    const { code, stderr } = await runCli('inspect', dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(/GPT2LMHeadModel/);
  });
});
