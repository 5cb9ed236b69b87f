// Strict text decoding: invalid UTF-8, UTF-16 (with or without byte-order mark) and NUL bytes are errors naming the
// file and line, in the decoder and in every reader that uses it (triplets, BEIR, TREC, JSON, vocab.txt).
import { describe, expect, it } from 'vitest';
import { loadBeir } from '../../../src/io/beir/beir.ts';
import { createMemorySource, readJsonFile } from '../../../src/io/file-source.ts';
import { decodeUtf8Strict, firstInvalidUtf8, TextDecodeError } from '../../../src/io/text-decode.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { parseQrels, parseRun } from '../../../src/io/beir/trec.ts';
import { readTriplets } from '../../../src/io/triplets/triplets.ts';

const utf8 = (text: string) => new TextEncoder().encode(text);

const concat = (...parts: (Uint8Array | number[])[]) => new Uint8Array(parts.flatMap((p) => [...p]));

function utf16(text: string, littleEndian: boolean, bom: boolean): Uint8Array {
  const out = new Uint8Array(2 * text.length + (bom ? 2 : 0));
  const view = new DataView(out.buffer);
  if (bom) view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16((bom ? 2 : 0) + 2 * i, text.charCodeAt(i), littleEndian);
  return out;
}

describe('decodeUtf8Strict', () => {
  it('decodes UTF-8 and drops a leading byte-order mark', () => {
    expect(decodeUtf8Strict(concat([0xef, 0xbb, 0xbf], utf8('café\n')), 'a.tsv')).toBe('café\n');
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['Latin-1 é', [0xe9, 0x74, 0xe9]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
  ])('names the line and byte of %s', (_, bad) => {
    const bytes = concat(utf8('line one\nline two\nbad: '), bad, utf8('\n'));
    expect(firstInvalidUtf8(bytes)).toBe(23);
    const run = () => decodeUtf8Strict(bytes, 'data/x.tsv');
    expect(run).toThrow(TextDecodeError);
    expect(run).toThrow(
      new RegExp(
        `^data/x\\.tsv:3: invalid UTF-8 \\(byte 0x${bad[0].toString(16).toUpperCase()} at byte 23\\); the file is in another encoding: save it as UTF-8$`,
      ),
    );
  });

  it.each([
    [
      'little-endian with a byte-order mark',
      utf16('q\tp\tn\n', true, true),
      /^x\.tsv: this file is UTF-16 \(byte-order mark FF FE, little-endian\); save it as UTF-8$/,
    ],
    [
      'big-endian with a byte-order mark',
      utf16('q\tp\tn\n', false, true),
      /this file is UTF-16 \(byte-order mark FE FF, big-endian\); save it as UTF-8/,
    ],
    [
      'little-endian without one',
      utf16('query\tpositive\tnegative\n', true, false),
      /^x\.tsv: this file is UTF-16 \(LE, NUL bytes between the characters\); save it as UTF-8$/,
    ],
    ['big-endian without one', utf16('query\tpositive\tnegative\n', false, false), /this file is UTF-16 \(BE, NUL bytes/],
  ])('recognises UTF-16 %s', (_, bytes, message) => {
    expect(() => decodeUtf8Strict(bytes, 'x.tsv')).toThrow(message);
  });

  it('refuses a NUL byte in otherwise ASCII text, naming its line', () => {
    expect(() => decodeUtf8Strict(utf8('a\nb\nc\0d\n'), 'x.tsv')).toThrow(
      /^x\.tsv:3: NUL byte at byte 5: this is not a text file; save it as UTF-8 text$/,
    );
  });
});

describe('every text reader decodes strictly', () => {
  const latin1 = concat(utf8('what is a caf'), [0xe9], utf8('\tpositive\tnegative\n'));

  it('triplets: names the file and line instead of replacing the byte with U+FFFD', async () => {
    const source = createMemorySource(new Map([['t.tsv', concat(utf8('q\tp\tn\n'), latin1)]]), 'mem');
    await expect(readTriplets(source, 't.tsv')).rejects.toThrow(/^mem\/t\.tsv:2: invalid UTF-8 \(byte 0xE9 at byte 19\)/);
  });

  it('BEIR corpus, queries and qrels', async () => {
    const corpus = utf8('{"_id": "d1", "text": "x"}\n');
    const queries = utf8('{"_id": "q1", "text": "y"}\n');
    const qrels = utf8('query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    const folder = (files: Record<string, Uint8Array>) =>
      createMemorySource(
        new Map(Object.entries({ 'corpus.jsonl': corpus, 'queries.jsonl': queries, 'qrels/test.tsv': qrels, ...files })),
        'beir',
      );
    await expect(loadBeir(folder({}))).resolves.toMatchObject({ queryIds: ['q1'] });
    await expect(
      loadBeir(folder({ 'corpus.jsonl': concat(corpus, utf8('{"_id": "d2", "text": "'), [0xff], utf8('"}\n')) })),
    ).rejects.toThrow(/^beir\/corpus\.jsonl:2: invalid UTF-8 \(byte 0xFF/);
    await expect(loadBeir(folder({ 'queries.jsonl': utf16('{"_id": "q1", "text": "y"}\n', true, true) }))).rejects.toThrow(
      /^beir\/queries\.jsonl: this file is UTF-16/,
    );
    await expect(loadBeir(folder({ 'qrels/test.tsv': concat(qrels, utf8('q1\td'), [0xc3], utf8('\t1\n')) }))).rejects.toThrow(
      /^beir\/qrels\/test\.tsv:3: invalid UTF-8/,
    );
  });

  it('TREC qrels and run files given as bytes', () => {
    expect(() => parseQrels(concat(utf8('q1 0 d1 1\nq1 0 d'), [0xa0], utf8(' 0\n')), 'qrels.txt')).toThrow(
      /^qrels\.txt:2: invalid UTF-8 \(byte 0xA0/,
    );
    expect(() => parseRun(utf16('q1 Q0 d1 1 2.5 t\n', true, false), 'run.txt')).toThrow(/^run\.txt: this file is UTF-16/);
    expect(parseQrels(utf8('q1 0 d1 1\n'), 'qrels.txt').get('q1')!.get('d1')).toBe(1);
  });

  it('config.json and vocab.txt', async () => {
    const bad = createMemorySource(
      new Map([
        ['config.json', concat(utf8('{"model_type": "b'), [0xe9], utf8('rt"}'))],
        ['vocab.txt', utf16('[PAD]\n', true, true)],
      ]),
      'm',
    );
    await expect(loadTokenizer(bad)).rejects.toThrow(/^m\/vocab\.txt: this file is UTF-16/);
    await expect(readJsonFile(bad, 'config.json')).rejects.toThrow(/^m\/config\.json:1: invalid UTF-8 \(byte 0xE9 at byte 17\)/);
  });
});
