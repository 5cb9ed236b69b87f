// `audit --in` streams (issue 42, item 9): 10,000 texts are audited a chunk at a time and each audit is handed on (and
// printed) before the next chunk is encoded, so what is held at once does not grow with the number of texts (a dense
// model's audits kept to the end took 2.5 GB for 10,000 short texts); the CLI prints the same output as before, one
// audit at a time, and counts --in's texts on stderr. `--against` compares the same way: a chunk of texts encoded on
// each side, added to the sums, dropped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareInChunks, diffEncodings, type ComparedEncoder } from '../../../src/app/model/audit-diff.ts';
import { AUDIT_CHUNK, auditTexts, streamTextAudits, type TextAudit } from '../../../src/app/model/expansion-audit.ts';
import type { ModelSession } from '../../../src/app/model/model-session.ts';
import type { EncodedWithOrigins } from '../../../src/model/splade-encoder.ts';
import { runCli } from '../../helpers/cli.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

/** Terms of every text's vector: a dense model's audit holds this many term objects per text. */
const TERMS = 100;

/** A session that encodes each text into TERMS dense terms without a GPU, and counts the texts it encoded. */
function countingSession() {
  const vocab = Array.from({ length: TERMS }, (_, id) => `t${id}`);
  const counts = { encoded: 0, largestCall: 0 };
  const session = {
    vocabulary: () => vocab,
    fittedLength: (n: number) => n,
    model: { tokenizer: { encode: (text: string) => ({ ids: [0, 1 + (text.length % (TERMS - 1))] }) } },
    async encodeWithOrigins(texts: readonly string[]): Promise<EncodedWithOrigins[]> {
      counts.encoded += texts.length;
      counts.largestCall = Math.max(counts.largestCall, texts.length);
      return texts.map((text) => ({
        vector: {
          indices: Uint32Array.from({ length: TERMS }, (__, id) => id),
          values: Float32Array.from({ length: TERMS }, (__, id) => 1 + ((id * 7 + text.length) % 13)),
        },
        origins: new Uint32Array(TERMS).fill(1),
      }));
    },
  };
  return { session: session as unknown as ModelSession, counts };
}

describe('streamTextAudits', () => {
  it('holds one chunk of 10,000 texts at a time: each audit is handed on before the next chunk is encoded', async () => {
    const { session, counts } = countingSession();
    const texts = Array.from({ length: 10_000 }, (_, i) => `text ${i}`);
    let handed = 0;
    let mostHeld = 0;
    let termsSeen = 0;
    const progress: number[] = [];
    await streamTextAudits(
      session,
      texts,
      { k: 1, maxLength: 16 },
      (audit, index) => {
        expect(index).toBe(handed);
        expect(audit.text).toBe(texts[index]);
        handed++;
        termsSeen += audit.terms.length;
        // texts encoded but not yet handed on: what the stream holds now
        mostHeld = Math.max(mostHeld, counts.encoded - handed);
      },
      { onProgress: (done, total) => (expect(total).toBe(10_000), progress.push(done)) },
    );
    expect(handed).toBe(10_000);
    expect(termsSeen).toBe(10_000 * TERMS);
    expect(counts.largestCall).toBe(AUDIT_CHUNK);
    expect(mostHeld).toBeLessThan(AUDIT_CHUNK);
    expect(progress.at(-1)).toBe(10_000);
    expect(progress).toHaveLength(Math.ceil(10_000 / AUDIT_CHUNK));
  });

  it('hands on the audits auditTexts makes, in order, at any chunk size', async () => {
    const texts = Array.from({ length: 11 }, (_, i) => 'x'.repeat(i));
    const whole = await auditTexts(countingSession().session, texts, { k: 2, maxLength: 8 });
    for (const chunk of [1, 4, 11, 64]) {
      const streamed: TextAudit[] = [];
      await streamTextAudits(countingSession().session, texts, { k: 2, maxLength: 8 }, (a) => void streamed.push(a), { chunk });
      expect(streamed).toEqual(whole);
    }
  });
});

/** An encoder of a few terms per text (which depend on the text and k), counting what it was asked at once. */
function countingEncoder(vocabSize: number) {
  const vocab = Array.from({ length: vocabSize }, (_, id) => `w${id}`);
  const counts = { encoded: 0, largestCall: 0 };
  const encoder: ComparedEncoder = {
    vocabulary: () => vocab,
    async encode(texts, request) {
      counts.encoded += texts.length;
      counts.largestCall = Math.max(counts.largestCall, texts.length);
      return texts.map((text) => {
        const ids = [...new Set([text.length % vocabSize, (text.length * request.k) % vocabSize, request.k % vocabSize])];
        ids.sort((a, b) => a - b);
        return { indices: Uint32Array.from(ids), values: Float32Array.from(ids, (id) => 1 + id / request.k) };
      });
    },
  };
  return { encoder, counts };
}

describe('compareInChunks (audit --against)', () => {
  it('encodes 10,000 texts a chunk at a time on each side', async () => {
    const { encoder, counts } = countingEncoder(50);
    const texts = Array.from({ length: 10_000 }, (_, i) => `text ${i}`);
    const progress: number[] = [];
    const builder = await compareInChunks(texts, texts, [encoder, { k: 1, maxLength: 16 }, encoder, { k: 3, maxLength: 16 }], {
      onProgress: (done) => void progress.push(done),
    });
    expect(counts.encoded).toBe(20_000);
    expect(counts.largestCall).toBe(64);
    expect(progress).toHaveLength(Math.ceil(10_000 / 64));
    expect(builder.result(5).texts).toBe(10_000);
  });

  it('gives the comparison of the whole vectors, at any chunk size, with two vocabularies', async () => {
    const texts = Array.from({ length: 23 }, (_, i) => 'y'.repeat(i + 1));
    const labels = texts.map((_, i) => `t${i}`);
    const [base, against] = [countingEncoder(40).encoder, countingEncoder(31).encoder];
    const whole = diffEncodings(
      labels,
      { vectors: await base.encode(texts, { k: 1, maxLength: 8 }), vocab: base.vocabulary() },
      { vectors: await against.encode(texts, { k: 5, maxLength: 8 }), vocab: against.vocabulary() },
      0,
    );
    expect(whole.gainedTerms).toBeGreaterThan(0);
    for (const chunk of [1, 4, 23, 64]) {
      const streamed = await compareInChunks(labels, texts, [base, { k: 1, maxLength: 8 }, against, { k: 5, maxLength: 8 }], {
        chunk,
      });
      expect(streamed.result(0)).toEqual(whole);
    }
  });
});

describe('splade-lab audit --in', () => {
  let root: string;
  let model: string;
  let records: string;
  const texts = Array.from({ length: 150 }, (_, i) => ['the cat sat', 'a dog ran fast', 'the gene of a cell'][i % 3] + ` ${i}`);
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'splade-audit-stream-'));
    model = join(root, 'tiny');
    await writeTinySpladeModel(model, 'bert');
    records = join(root, 'texts.jsonl');
    await writeFile(records, texts.map((text, i) => JSON.stringify({ _id: `t${i}`, text })).join('\n') + '\n');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('prints every text as before, as one JSON array or text blocks, and counts the texts on stderr', async () => {
    const json = await runCli('audit', '--model', model, '--in', records, '--max-length', '16', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toContain(`\raudited ${AUDIT_CHUNK}/150`);
    expect(json.stderr).toContain('\raudited 150/150');
    const audits = JSON.parse(json.stdout) as TextAudit[];
    expect(audits.map((a) => a.text)).toEqual(texts);
    expect(json.stdout.endsWith(']\n')).toBe(true);
    const plain = await runCli(
      'audit',
      '--model',
      model,
      '--in',
      records,
      '--text',
      'protein',
      '--max-length',
      '16',
      '--top',
      '2',
    );
    expect(plain.code, plain.stderr).toBe(0);
    const blocks = plain.stdout.split('\n\n');
    expect(blocks).toHaveLength(151);
    expect(blocks[0]).toMatch(/^"protein" at k = 1: \d+ active terms/);
    expect(blocks[150]).toMatch(/^"the gene of a cell 149" at k = 1: /);
    expect(plain.stdout.endsWith(' more (--top 0 lists all)\n')).toBe(true);
  });

  it('--against compares every text a chunk at a time, counting them on stderr', async () => {
    const run = await runCli(
      'audit',
      '--model',
      model,
      '--against',
      model,
      '--against-k',
      '4',
      '--in',
      records,
      '--max-length',
      '16',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`\rcompared ${AUDIT_CHUNK}/150`);
    expect(run.stderr).toContain('\rcompared 150/150');
    const diff = JSON.parse(run.stdout) as { texts: number; perText: { label: string }[] };
    expect(diff.texts).toBe(150);
    expect(diff.perText.map((t) => t.label)).toEqual(texts.map((_, i) => `t${i}`));
  });
});
