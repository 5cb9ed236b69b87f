// The expansion audit: the GPU head's winning position of every active term equals an independent argmax over the
// float64 logits on 100 texts (BERT and ModernBERT), and `splade-lab audit` reports those positions, pieces and kinds,
// of single texts and of a query's shared terms with each document (their products summing to the float64 score).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { spladeForward } from '../../../src/model/reference/splade.ts';
import { SpladeTextEncoder } from '../../../src/model/splade-encoder.ts';
import { toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';
import type { TextAudit } from '../../../src/app/model/expansion-audit.ts';
import type { PairAudit } from '../../../src/contract/model/pair-audit.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const MAX_LENGTH = 16;
let root: string;
const loaded: Record<string, LoadedModel> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-audit-'));
  const options = { bert: {}, modernbert: { localAttention: 4, globalAttnEveryNLayers: 2 } };
  for (const arch of ['bert', 'modernbert'] as const) {
    await writeTinySpladeModel(join(root, arch), arch, options[arch]);
    loaded[arch] = await loadModel(createFolderSource(join(root, arch)));
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** 100 seeded texts of 1 to 20 words (longer ones truncated), words often repeated. */
function texts(): string[] {
  const random = new Random(7);
  return Array.from({ length: 100 }, () =>
    Array.from({ length: 1 + random.int(20) }, () => TINY_WORDS[random.int(TINY_WORDS.length)]).join(' '),
  );
}

describe('expansion audit', () => {
  it.each(['bert', 'modernbert'])(
    '%s: each active term won the max at the float64 argmax position, on 100 texts',
    async (arch) => {
      const ctx = await gpuContext();
      const { config, params, tokenizer } = loaded[arch];
      const encoder = new SpladeTextEncoder(ctx, GpuModel.upload(ctx, config, params), tokenizer, 8);
      const all = texts();
      const encoded = await encoder.encodeWithOrigins(all, { maxLength: MAX_LENGTH });
      const reference = toFloat64Params(params);
      const V = config.vocabSize;
      let terms = 0;
      let nearTies = 0;
      all.forEach((text, i) => {
        const ids = tokenizer.encode(text, { maxLength: MAX_LENGTH }).ids;
        const T = ids.length;
        const expected = spladeForward(config, reference, { ids: Int32Array.from(ids), mask: ids.map(() => 1), B: 1, T });
        const { vector, origins } = encoded[i];
        expect(origins.length).toBe(vector.indices.length);
        vector.indices.forEach((v, j) => {
          terms++;
          const won = origins[j];
          const argmax = expected.argmax[v];
          expect(won, `"${text}" id ${v}: a position of the text`).toBeLessThan(T);
          if (won === argmax) return;
          // float32 against float64: only a near-tie may pick another position (and then one as large)
          const gap = Math.abs(expected.logits[won * V + v] - expected.logits[argmax * V + v]);
          expect(gap, `"${text}" id ${v}: GPU position ${won}, float64 argmax ${argmax}`).toBeLessThan(1e-5);
          nearTies++;
        });
      });
      expect(terms).toBeGreaterThan(1000);
      expect(nearTies / terms, `${nearTies} near-ties of ${terms} terms`).toBeLessThan(0.01);
    },
  );

  it('`splade-lab audit` lists each term with its weight, kind and winning position and piece', async () => {
    const model = join(root, 'bert');
    const text = 'the cat sat on the mat';
    const { code, stdout, stderr } = await runCli('audit', '--model', model, '--text', text, '--text', 'protein', '--json');
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const audits = JSON.parse(stdout) as TextAudit[];
    expect(audits.map((a) => a.text)).toEqual([text, 'protein']);
    const { config, params, tokenizer } = loaded.bert;
    const ids = tokenizer.encode(text, { maxLength: 256 }).ids;
    const expected = spladeForward(config, toFloat64Params(params), {
      ids: Int32Array.from(ids),
      mask: ids.map(() => 1),
      B: 1,
      T: ids.length,
    });
    const [audit] = audits;
    expect(audit.tokens).toEqual(ids.map((id) => tokenizer.idToToken(id)));
    expect(audit.terms.length).toBeGreaterThan(0);
    for (const term of audit.terms) {
      expect(term.position).toBe(expected.argmax[term.id]);
      expect(term.piece).toBe(audit.tokens[term.position]);
      expect(term.expansion).toBe(!ids.includes(term.id));
      expect(term.weight).toBeCloseTo(expected.pooled[term.id], 4);
    }
    expect(audit.terms.map((t) => t.weight)).toEqual([...audit.terms.map((t) => t.weight)].sort((a, b) => b - a));
    const mass = (pick: (t: TextAudit['terms'][number]) => boolean) => audit.terms.filter(pick).reduce((s, t) => s + t.weight, 0);
    expect(audit.expansionShare).toBeCloseTo(mass((t) => t.expansion) / mass(() => true), 6);
    // the text form names each column and says how many terms it left out
    const plain = await runCli('audit', '--model', model, '--text', text, '--top', '3');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/active terms, \d+\.\d% of the weight on expansions/);
    expect(plain.stdout).toMatch(/and \d+ more \(--top 0 lists all\)/);
    const none = await runCli('audit', '--model', model);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/give a --text to audit/);
  });

  it("`splade-lab audit --query` gives each document's shared terms, their products summing to the score, origins on both sides", async () => {
    const model = join(root, 'modernbert');
    const query = 'cat on a mat';
    const documents = ['the cat sat on the mat', 'protein binds the cell', ''];
    const args = documents.flatMap((d) => ['--text', d]);
    const { code, stdout, stderr } = await runCli('audit', '--model', model, '--query', query, ...args, '--json');
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const pairs = JSON.parse(stdout) as PairAudit[];
    expect(pairs.map((p) => [p.query.text, p.document.text])).toEqual(documents.map((d) => [query, d]));
    const { config, params, tokenizer } = loaded.modernbert;
    const reference = toFloat64Params(params);
    const forward = (text: string) => {
      const ids = tokenizer.encode(text, { maxLength: 256 }).ids;
      return spladeForward(config, reference, { ids: Int32Array.from(ids), mask: ids.map(() => 1), B: 1, T: ids.length });
    };
    const q = forward(query);
    for (const pair of pairs) {
      const d = forward(pair.document.text);
      const expectedScore = q.pooled.reduce((sum, w, v) => sum + w * d.pooled[v], 0);
      expect(pair.score).toBeCloseTo(expectedScore, 3);
      const inDocument = new Set(pair.document.terms.map((t) => t.id));
      const sharedIds = pair.query.terms.filter((t) => inDocument.has(t.id)).map((t) => t.id);
      expect(pair.shared.map((t) => t.id).sort((a, b) => a - b)).toEqual(sharedIds.sort((a, b) => a - b));
      for (const t of pair.shared) {
        expect(t.product).toBeCloseTo(t.query.weight * t.document.weight, 6);
        expect(t.query.position).toBe(q.argmax[t.id]);
        expect(t.document.position).toBe(d.argmax[t.id]);
        expect(t.document.piece).toBe(pair.document.tokens[t.document.position]);
      }
      expect(pair.shared.map((t) => t.product)).toEqual([...pair.shared.map((t) => t.product)].sort((a, b) => b - a));
      const fromQueryExpansions = pair.shared.filter((t) => t.query.expansion).reduce((s, t) => s + t.product, 0);
      expect(pair.expansionShares.query).toBeCloseTo(pair.score > 0 ? fromQueryExpansions / pair.score : 0, 6);
    }
    expect(pairs[0].shared.length).toBeGreaterThan(0);
    // the text form, and a --query with nothing to pair it with, or beside --corpus
    const plain = await runCli('audit', '--model', model, '--query', query, '--text', documents[0], '--top', '2');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/score \d+\.\d{4} over \d+ shared terms; of the score, \d+\.\d% from query expansions/);
    const mixed = await runCli('audit', '--model', model, '--query', query, '--corpus', join(root, 'none.jsonl'));
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toMatch(/--query audits pairs of texts/);
  });
});
