// BEIR ids are strings (issue 33, item 4): an `_id` written as a JSON number keeps its digits (12345678901234567890 and
// ...891 stay two documents, 1e400 stays "1e400"), a repeated id is an error naming both lines, in `eval`'s reader and
// in `encode`; and a title or text over the field cap keeps its first characters with a warning (item 14).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARACTERS, loadBeir, parseBeirJsonl } from '../../../src/io/beir/beir.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadNanoBeir } from '../../../src/io/beir/nanobeir.ts';
import { memberSourceText } from '../../../src/io/json-member-text.ts';
import { runCli } from '../../helpers/cli.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

/** Five records whose ids JSON.parse cannot keep apart or keep at all (two differ past float64's 53 bits). */
const NUMERIC_IDS = [
  '{"_id": 12345678901234567890, "text": "the cat sat on the mat"}',
  '{"_id": 12345678901234567891, "text": "the river and the sea"}',
  '{"_id": 1e400, "text": "music and song"}',
  '{"_id": 1.50, "text": "a drug study"}',
  '{"text": "sparse search", "_id" : -7}',
];

const SOURCE_IDS = ['12345678901234567890', '12345678901234567891', '1e400', '1.50', '-7'];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-beir-ids-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function beirFolder(
  name: string,
  corpus: string,
  queries = '{"_id": 7, "text": "cat"}\n',
  qrels = '7\t12345678901234567891\t1\n',
) {
  const dir = join(root, name);
  await mkdir(join(dir, 'qrels'), { recursive: true });
  await writeFile(join(dir, 'corpus.jsonl'), corpus);
  await writeFile(join(dir, 'queries.jsonl'), queries);
  await writeFile(join(dir, 'qrels', 'test.tsv'), qrels);
  return dir;
}

describe('ids written as JSON numbers', () => {
  it('keep their source text in a BEIR folder: every document stays, and the qrels find it', async () => {
    const dataset = await loadBeir(createFolderSource(await beirFolder('numeric', NUMERIC_IDS.join('\n') + '\n')));
    expect(dataset.corpusIds).toEqual(SOURCE_IDS);
    expect(dataset.queryIds).toEqual(['7']);
    expect(dataset.warnings).toEqual([]);
  });

  it('are found as the object member, not inside a string, a nested object or an escaped key', () => {
    const line = '{"t\\"_id": 1, "x": {"_id": 2, "y": ["_id", 3]}, "s": "\\\\", "\\u005fid": 12345678901234567890123 }';
    expect(JSON.parse(line)._id).toBe(1.2345678901234568e22);
    expect(memberSourceText(line, '_id')).toBe('12345678901234567890123');
    expect(memberSourceText('{"_id": 1, "_id": 2.0}', '_id')).toBe('2.0'); // the last one, as JSON.parse keeps
    expect(memberSourceText('{"text": "no id"}', '_id')).toBeUndefined();
  });

  it('a repeated id is an error naming both lines, in corpus and queries alike', async () => {
    const repeated = await beirFolder('repeated', NUMERIC_IDS.join('\n') + '\n{"_id": "1.50", "text": "again"}\n');
    await expect(loadBeir(createFolderSource(repeated))).rejects.toThrow(
      /corpus\.jsonl:6: _id "1\.50" repeats the _id of line 4; ids must be unique: remove one of the two or give it an id of its own/,
    );
    const queries = await beirFolder(
      'repeated-query',
      NUMERIC_IDS[0] + '\n',
      '{"_id": "q", "text": "a"}\n\n{"_id": "q", "text": "b"}\n',
    );
    await expect(loadBeir(createFolderSource(queries))).rejects.toThrow(/queries\.jsonl:3: _id "q" repeats the _id of line 1/);
  });

  it('a repeated id in a NanoBEIR table is the same error, naming both rows', async () => {
    const dir = join(root, 'nano');
    const table = (columns: [string, string[]][]) =>
      new Uint8Array(parquetWriteBuffer({ columnData: columns.map(([name, data]) => ({ name, data, type: 'STRING' })) }));
    for (const [path, bytes] of [
      [
        'corpus',
        table([
          ['_id', ['d1', 'd2', 'd1']],
          ['text', ['a', 'b', 'c']],
        ]),
      ],
      [
        'queries',
        table([
          ['_id', ['q1']],
          ['text', ['a']],
        ]),
      ],
      [
        'qrels',
        table([
          ['query-id', ['q1']],
          ['corpus-id', ['d1']],
        ]),
      ],
    ] as const) {
      await mkdir(join(dir, path), { recursive: true });
      await writeFile(join(dir, path, 'train-00000-of-00001.parquet'), bytes);
    }
    await expect(loadNanoBeir(createFolderSource(dir), 'Nano')).rejects.toThrow(
      /corpus\/train-00000-of-00001\.parquet row 2: _id "d1" repeats the _id of row 0; ids must be unique/,
    );
  });

  it('an id that is neither a string nor a number is refused by its type', () => {
    expect(() => parseBeirJsonl('{"_id": [1], "text": "a"}\n', 'c.jsonl')).toThrow(
      'c.jsonl:1: "_id" must be a string or a number, got a list of 1 items',
    );
  });
});

describe('splade-lab encode', () => {
  it('writes one vector per record, each under the id as written, and refuses a repeated id naming both lines', async () => {
    const model = join(root, 'model');
    await writeTinySpladeModel(model);
    const input = join(root, 'records.jsonl');
    await writeFile(input, NUMERIC_IDS.join('\n') + '\n');
    const out = join(root, 'vectors.jsonl');
    const { code, stderr } = await runCli('encode', '--model', model, '--in', input, '--out', out, '--format', 'qdrant');
    expect(stderr).toContain('wrote 5 qdrant vectors');
    expect(code).toBe(0);
    const ids = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).payload.doc_id);
    expect(ids).toEqual(SOURCE_IDS);

    await writeFile(input, NUMERIC_IDS.join('\n') + '\n' + '{"_id": 12345678901234567890, "text": "again"}\n');
    const repeated = await runCli('encode', '--model', model, '--in', input, '--out', out);
    expect(repeated.code).toBe(1);
    expect(repeated.stderr).toContain(
      `splade-lab encode: ${input}:6: _id "12345678901234567890" repeats the _id of line 1; ids must be unique`,
    );
  });
});

describe('the field cap', () => {
  it('keeps the first characters of a long title or text, never half a surrogate pair, and says so once', () => {
    const lines = [
      '{"_id": "a", "title": "0123456789abc", "text": "short"}',
      `{"_id": "b", "text": ${JSON.stringify('123456789\u{1F30A}tail')}}`,
      '{"_id": "c", "text": "fits"}',
    ];
    const { records, warnings } = parseBeirJsonl(lines.join('\n'), 'corpus.jsonl', { maxFieldCharacters: 10 });
    expect(records.map((r) => [r.title, r.text])).toEqual([
      ['0123456789', 'short'],
      [undefined, '123456789'],
      [undefined, 'fits'],
    ]);
    expect(warnings).toEqual([
      'corpus.jsonl: 2 title or text field(s) over 10 characters kept only their first 10 (line 1: "title" of 13 characters); a model reads far fewer tokens than that',
    ]);
  });

  it('is a million characters by default, and the eval reader passes its warning on', async () => {
    expect(MAX_FIELD_CHARACTERS).toBe(1_000_000);
    const long = 'sea '.repeat(300_000); // 1.2 million characters
    const corpus = `{"_id": "d1", "text": "the cat"}\n{"_id": 12345678901234567891, "text": "${long}"}\n`;
    const dataset = await loadBeir(createFolderSource(await beirFolder('long', corpus)));
    expect(dataset.corpusTexts[1].length).toBe(MAX_FIELD_CHARACTERS - 1); // trimmed: it ends in a space
    expect(dataset.warnings).toEqual([
      expect.stringMatching(
        /corpus\.jsonl: 1 title or text field\(s\) over 1000000 characters kept only their first 1000000 \(line 2: "text" of 1200000 characters\)/,
      ),
    ]);
  });
});
