// The corpus audit and the comparison of `splade-lab audit`: category shares and term counts equal a recount from the
// session's encodeWithOrigins, pieces are classified by kind, a model against itself differs in nothing, k = 1
// against k = 4 gains and loses exactly the set differences, and empty documents are skipped and counted.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditDiff } from '../../../src/app/model/audit-diff.ts';
import type { CorpusAudit } from '../../../src/app/model/corpus-audit.ts';
import { ENGLISH_STOP_WORDS } from '../../../src/app/model/english-stop-words.ts';
import { ModelSession } from '../../../src/app/model/model-session.ts';
import { openModelRef } from '../../../src/app/model/open-model.ts';
import { pieceKind, pieceMarkingOf, type PieceKind } from '../../../src/app/model/piece-kinds.ts';
import { nodePlatform } from '../../../src/app/platform/platform-node.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { TINY_VOCAB, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const MAX_LENGTH = 16;
/** The tiny model's vocabulary with three words made into pieces of other kinds. */
const PIECES: Record<string, string> = { ran: '##s', fast: '42', slow: '[unused0]' };
const VOCAB = TINY_VOCAB.map((token) => PIECES[token] ?? token);
/** What the recount calls each piece, written out by hand: ids 0-4 are BERT's specials. */
const KIND_OF: Record<string, PieceKind> = { '##s': 'subword', '42': 'number', '[unused0]': 'special' };
const kindOf = (piece: string, id: number): PieceKind =>
  id < 5 ? 'special' : (KIND_OF[piece] ?? (['the', 'a', 'of', 'and', 'in'].includes(piece) ? 'stopWord' : 'word'));

let root: string;
let model: string;
let corpus: string;
let session: ModelSession;
/** The corpus's documents in file order, two of them empty. */
const documents: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-audit-corpus-'));
  model = join(root, 'model');
  await writeTinySpladeModel(model, 'bert');
  await writeFile(join(model, 'vocab.txt'), VOCAB.join('\n') + '\n');
  const words = [...VOCAB.filter((t, id) => id >= 5 && !t.startsWith('#') && !t.startsWith('[')), 'cats', 'dogs'];
  const random = new Random(11);
  for (let i = 0; i < 40; i++)
    documents.push(Array.from({ length: 1 + random.int(12) }, () => words[random.int(words.length)]).join(' '));
  documents.splice(7, 0, '');
  documents.splice(20, 0, '   ');
  corpus = join(root, 'beir');
  await mkdir(corpus);
  const lines = documents.map((text, i) => JSON.stringify({ _id: `d${i}`, title: '', text }));
  await writeFile(join(corpus, 'corpus.jsonl'), lines.join('\n') + '\n');
  const ctx = await gpuContext();
  session = await ModelSession.open(
    ctx,
    await openModelRef(nodePlatform, { kind: 'folder', path: model }, { limits: ctx.limits }),
  );
});
afterAll(async () => {
  session?.destroy();
  await rm(root, { recursive: true, force: true });
});

const nonEmpty = () => documents.filter((text) => text.trim() !== '');

async function auditJson<T>(...argv: string[]): Promise<T> {
  const { code, stdout, stderr } = await runCli('audit', '--model', model, '--max-length', String(MAX_LENGTH), ...argv, '--json');
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as T;
}

/** Each text's active terms at k: piece -> weight, with the text's own ids. */
async function encodedTerms(k: number) {
  const texts = nonEmpty();
  const encoded = await session.encodeWithOrigins(texts, { k, maxLength: MAX_LENGTH });
  return encoded.map(({ vector }, i) => ({
    own: new Set(session.model.tokenizer.encode(texts[i], { maxLength: MAX_LENGTH }).ids),
    terms: Array.from(vector.indices, (id, j) => ({ id, piece: VOCAB[id], weight: vector.values[j] })),
  }));
}

describe('corpus audit', () => {
  it('category shares sum to 1 and equal a recount of encodeWithOrigins, as do the term lists', async () => {
    const audit = await auditJson<CorpusAudit>('--corpus', corpus, '--top', '0');
    const weight = new Map<string, number>();
    const dims = new Map<string, number>();
    const count = (key: string, w: number) => {
      weight.set(key, (weight.get(key) ?? 0) + w);
      dims.set(key, (dims.get(key) ?? 0) + 1);
    };
    const expansionDocs = new Map<string, number>();
    const activeDocs = new Map<string, number>();
    for (const { own, terms } of await encodedTerms(1)) {
      for (const { id, piece, weight: w } of terms) {
        const expansion = !own.has(id);
        count(expansion ? 'expansion' : 'input', w);
        count(kindOf(piece, id), w);
        if (expansion) count(`${kindOf(piece, id)} expansion`, w);
        activeDocs.set(piece, (activeDocs.get(piece) ?? 0) + 1);
        if (expansion) expansionDocs.set(piece, (expansionDocs.get(piece) ?? 0) + 1);
      }
    }
    const total = (weight.get('input') ?? 0) + (weight.get('expansion') ?? 0);
    const totalDims = (dims.get('input') ?? 0) + (dims.get('expansion') ?? 0);
    for (const [group, names] of [
      ['origins', ['input', 'expansion']],
      ['kinds', ['special', 'number', 'stopWord', 'subword', 'word']],
    ] as const) {
      const figures = audit[group] as Record<string, CorpusAudit['origins']['input']>;
      expect(Object.keys(figures).sort()).toEqual([...names].sort());
      expect(names.reduce((s, n) => s + figures[n].weightShare, 0)).toBeCloseTo(1, 9);
      expect(names.reduce((s, n) => s + figures[n].dimsShare, 0)).toBeCloseTo(1, 9);
      for (const name of names) {
        expect(figures[name].weightShare, `${group} ${name}`).toBeCloseTo((weight.get(name) ?? 0) / total, 6);
        expect(figures[name].dimsShare, `${group} ${name}`).toBeCloseTo((dims.get(name) ?? 0) / totalDims, 9);
        expect(figures[name].meanDims).toBeCloseTo((dims.get(name) ?? 0) / nonEmpty().length, 9);
      }
    }
    for (const name of ['special', 'number', 'stopWord', 'subword', 'word'] as const) {
      expect(dims.get(name), `the corpus has ${name} pieces`).toBeGreaterThan(0);
      const expanded = (weight.get(`${name} expansion`) ?? 0) / weight.get(name)!;
      expect(audit.kinds[name].expansionShare, name).toBeCloseTo(expanded, 6);
    }
    const listed = (list: { term: string; documents: number }[]) => new Map(list.map((t) => [t.term, t.documents]));
    expect(listed(audit.frequentExpansions)).toEqual(expansionDocs);
    expect(listed(audit.widespreadTerms)).toEqual(activeDocs);
    const documentCounts = audit.widespreadTerms.map((t) => t.documents);
    expect(documentCounts).toEqual([...documentCounts].sort((a, b) => b - a));
  });

  it('skips and counts empty documents, and says so with the time it took', async () => {
    const { code, stdout, stderr } = await runCli('audit', '--model', model, '--corpus', corpus, '--top', '5');
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/: 40 documents \(2 empty skipped\)/);
    expect(stderr).toMatch(/audited 40 documents in \d+\.\d s/);
    const audit = await auditJson<CorpusAudit>('--corpus', join(corpus, 'corpus.jsonl'), '--limit', '10');
    expect([audit.documents, audit.skipped]).toEqual([9, 1]);
    const blank = join(root, 'blank.jsonl');
    await writeFile(blank, JSON.stringify({ _id: 'x', text: ' ' }) + '\n');
    const refused = await runCli('audit', '--model', model, '--corpus', blank);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/every document of --corpus is empty/);
  });

  it('--json is one object; the text form and --out TSV hold the same three tables', async () => {
    const audit = await auditJson<CorpusAudit>('--corpus', corpus, '--top', '3');
    expect(Object.keys(audit).sort()).toEqual(
      [
        'model',
        'maxLength',
        'k',
        'documents',
        'skipped',
        'meanActiveDims',
        'meanWeight',
        'subwordMarking',
        'stopWords',
        'origins',
        'kinds',
        'frequentExpansions',
        'widespreadTerms',
      ].sort(),
    );
    expect(audit.subwordMarking).toBe('"##" marks continuation pieces');
    expect(audit.frequentExpansions.length).toBe(3);
    expect(Object.keys(audit.widespreadTerms[0]).sort()).toEqual(['asExpansion', 'documents', 'meanWeight', 'share', 'term']);
    const out = join(root, 'report.tsv');
    const { code, stdout } = await runCli('audit', '--model', model, '--corpus', corpus, '--top', '3', '--out', out);
    expect(code).toBe(0);
    expect(stdout).toMatch(/where the weight goes[^\n]*\ncategory +weight share +dims share/);
    const blocks = (await readFile(out, 'utf8')).trimEnd().split('\n\n');
    expect(blocks.map((b) => b.split('\n')[0].split('\t')[0])).toEqual(['category', 'expansion', 'term']);
    expect(blocks.map((b) => b.split('\n').length)).toEqual([8, 4, 4]);
    expect(blocks[0].split('\n')[1].split('\t')).toEqual(['input terms', ...Array(5).fill(expect.stringMatching(/^[\d.e-]+$/))]);
  });
});

describe('piece kinds', () => {
  it.each([
    ['##', 'the', 'stopWord'],
    ['##', 'The', 'stopWord'],
    ['##', '##s', 'subword'],
    ['##', 's', 'stopWord'],
    ['##', '##ing', 'subword'],
    ['##', 'cat', 'word'],
    ['##', '.', 'word'],
    ['##', '1984', 'number'],
    ['##', '##12', 'number'],
    ['##', '[unused42]', 'special'],
    ['Ġ', 'Ġthe', 'stopWord'],
    ['Ġ', 'the', 'subword'],
    ['Ġ', 'Ġ.', 'word'],
    ['Ġ', 'ing', 'subword'],
    ['Ġ', 'Ġcat', 'word'],
    ['Ġ', 'Ġ2024', 'number'],
    ['Ġ', '<|endoftext|>', 'special'],
    ['▁', '▁and', 'stopWord'],
    ['▁', '▁cat', 'word'],
    ['▁', 's', 'subword'],
    ['▁', '<unused3>', 'special'],
  ])('with %s marking, %s is a %s piece', (marker, piece, kind) => {
    const vocab = marker === '##' ? ['the', '##s'] : [`${marker}the`, 's'];
    expect(pieceKind(piece, pieceMarkingOf(vocab))).toBe(kind);
  });

  it('the marking is the one most pieces carry (WordPiece when none), and tokenizer specials are special', () => {
    expect(pieceMarkingOf(['[CLS]', 'the', 'cat', '##s']).marker).toBe('##');
    expect(pieceMarkingOf(['<s>', 'Ġthe', 'Ġcat', 's', '##'])).toEqual({ marker: 'Ġ', marksWordStarts: true });
    expect(pieceMarkingOf(['<pad>', '▁the', '▁cat', 's'])).toEqual({ marker: '▁', marksWordStarts: true });
    expect(pieceMarkingOf(TINY_VOCAB)).toEqual({ marker: '##', marksWordStarts: false });
    expect(pieceKind('<s>', pieceMarkingOf(['Ġthe']), true)).toBe('special');
    expect(ENGLISH_STOP_WORDS.size).toBe(127);
  });
});

describe('audit --against', () => {
  it('a model against itself gains and loses nothing and changes no text', async () => {
    const diff = await auditJson<AuditDiff & { skipped: number }>('--corpus', corpus, '--against', model);
    expect([diff.texts, diff.skipped, diff.gainedTerms, diff.lostTerms]).toEqual([40, 2, 0, 0]);
    expect([diff.gained, diff.lost]).toEqual([[], []]);
    for (const text of diff.perText) expect([text.dimsChange, text.flopsChange]).toEqual([0, 0]);
    expect(diff.perText.map((t) => t.label)).toEqual(documents.flatMap((text, i) => (text.trim() ? [`d${i}`] : [])));
  });

  it('k = 1 against k = 4 gains and loses the set differences of the two encodings, with their weights', async () => {
    const diff = await auditJson<AuditDiff>('--corpus', corpus, '--against', model, '--k', '1', '--against-k', '4', '--top', '0');
    const [atOne, atFour] = [await encodedTerms(1), await encodedTerms(4)];
    const gained = new Map<string, { texts: number; mass: number }>();
    const lost = new Map<string, { texts: number; mass: number }>();
    const missing = (into: typeof gained, from: typeof atOne, other: typeof atOne) =>
      from.forEach(({ terms }, i) => {
        const present = new Set(other[i].terms.map((t) => t.piece));
        for (const { piece, weight } of terms.filter((t) => !present.has(t.piece))) {
          const entry = into.get(piece) ?? { texts: 0, mass: 0 };
          into.set(piece, { texts: entry.texts + 1, mass: entry.mass + weight });
        }
      });
    missing(gained, atFour, atOne);
    missing(lost, atOne, atFour);
    expect(gained.size + lost.size, 'k changes the active set of the tiny model').toBeGreaterThan(0);
    for (const [listed, expected] of [
      [diff.gained, gained],
      [diff.lost, lost],
    ] as const) {
      expect(new Set(listed.map((t) => t.term))).toEqual(new Set(expected.keys()));
      for (const { term, texts, mass } of listed) {
        expect(texts, term).toBe(expected.get(term)!.texts);
        expect(mass, term).toBeCloseTo(expected.get(term)!.mass, 5);
      }
      expect(listed.map((t) => t.mass)).toEqual([...listed.map((t) => t.mass)].sort((a, b) => b - a));
    }
    atOne.forEach(({ terms }, i) => {
      const squares = (list: typeof terms) => list.reduce((s, t) => s + t.weight * t.weight, 0);
      expect(diff.perText[i].dimsChange).toBe(atFour[i].terms.length - terms.length);
      expect(diff.perText[i].flopsChange).toBeCloseTo(squares(atFour[i].terms) - squares(terms), 4);
    });
  });

  it('--json holds both sides, the term lists and each text; the text form their tables', async () => {
    const argv = ['--against', model, '--k', '1', '--against-k', '4', '--text', 'the cat sat', '--text', 'cats 42'];
    const diff = await auditJson<Record<string, unknown>>(...argv);
    expect(Object.keys(diff).sort()).toEqual(
      [
        'model',
        'against',
        'maxLength',
        'skipped',
        'texts',
        'gainedTerms',
        'lostTerms',
        'meanDimsChange',
        'meanFlopsChange',
        'gained',
        'lost',
        'perText',
      ].sort(),
    );
    expect([diff.model, diff.against]).toEqual([
      { model, k: 1 },
      { model, k: 4 },
    ]);
    expect((diff.perText as { label: string }[]).map((t) => t.label)).toEqual(['the cat sat', 'cats 42']);
    const { code, stdout } = await runCli('audit', '--model', model, ...argv);
    expect(code).toBe(0);
    expect(stdout).toMatch(/terms gained: [^\n]*\ngained +texts +weight mass +mean weight/);
    expect(stdout).toMatch(/terms lost: [^\n]*\nlost +texts/);
    expect(stdout).toMatch(/\ntext +dims +against dims +dims change +flops +against flops +flops change\nthe cat sat /);
  });
});
