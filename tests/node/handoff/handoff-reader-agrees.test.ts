// The hand-off's Python reader (splade_data.py) and splade-lab read a triplet file alike: one header rule (every
// header shape the TypeScript reader takes, and the look-alikes it does not) and one line-break rule (\n, \r\n, \r).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';

const HANDOFF = fileURLToPath(new URL('../../../src/app/handoff/', import.meta.url));
const PYTHON = spawnSync('python3', ['--version']).status === 0;
if (!PYTHON) console.warn('handoff-reader-agrees.test.ts: python3 is missing, so these checks are skipped');
const pythonIt = PYTHON ? it : it.skip;

const ROWS = Array.from({ length: 8 }, (_, i) => `query ${i}\tpositive ${i}\tnegative ${i}`);

/** Both readers on the same bytes: the rows each reads, or its error. */
function bothRead(text: string): { typescript: string[][] | string; python: string[][] | string } {
  let typescript: string[][] | string;
  try {
    typescript = parseTriplets(text, 'data.tsv').triplets.map((t) => [t.query, t.positive, t.negative]);
  } catch (error) {
    typescript = (error as Error).message;
  }
  const code = [
    'import json, sys, splade_data as s',
    'try:',
    '    print(json.dumps([list(r) for r in s.parse_triplets(sys.stdin.buffer.read(), "data.tsv")]))',
    'except s.TripletFormatError as e:',
    '    print(json.dumps(str(e)))',
  ].join('\n');
  const run = spawnSync('python3', ['-B', '-c', code], { cwd: HANDOFF, input: text, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return { typescript, python: JSON.parse(run.stdout) };
}

const HEADERS_TAKEN = [
  'query\tpositive\tnegative',
  'Query\tPOSITIVE\tNegative',
  ' query \tpositive\t negative ',
  'query\tpositive\tnegative1',
  'query\tpositive\tnegative_1',
  'QUERY\tpositive\tNEGATIVE_12',
  'anchor\tpositive\tnegative',
];
const LOOK_ALIKES = [
  'query\tpositive\tnegatives',
  'queries\tpositive\tnegative',
  'query\tpositive\tneg_1',
  'query\tpositive\tnegative_',
];

describe("the hand-off's Python reader and splade-lab's", () => {
  for (const header of HEADERS_TAKEN)
    pythonIt(`both skip the header ${JSON.stringify(header)} and read 8 rows`, () => {
      const read = bothRead([header, ...ROWS].join('\n') + '\n');
      expect(read.typescript).toHaveLength(8);
      expect(read.python).toEqual(read.typescript);
    });

  for (const line of LOOK_ALIKES)
    pythonIt(`both read ${JSON.stringify(line)} as a row (not a header)`, () => {
      const read = bothRead([line, ...ROWS].join('\n') + '\n');
      expect(read.typescript).toHaveLength(9);
      expect(read.python).toEqual(read.typescript);
    });

  for (const [name, lineBreak] of [
    ['CR only', '\r'],
    ['CRLF', '\r\n'],
  ])
    pythonIt(`both read a ${name} file with a header the same`, () => {
      const read = bothRead(['query\tpositive\tnegative_1', ...ROWS].join(lineBreak) + lineBreak);
      expect(read.typescript).toHaveLength(8);
      expect(read.python).toEqual(read.typescript);
    });

  for (const name of ['label', 'labels', 'score', 'Scores'])
    pythonIt(`both read a header naming the teacher labels ${JSON.stringify(name)}, and name it in an error alike`, () => {
      const rows = ROWS.map((row, i) => `${row}\t[${i}.5, -1]`);
      const read = bothRead([`query\tpositive\tnegative\t${name}`, ...rows].join('\n') + '\n');
      expect(read.typescript).toHaveLength(8);
      expect(read.python).toEqual(read.typescript);
      const bad = bothRead([`query\tpositive\tnegative\t${name}`, rows[0], 'q\tp\tn\thigh'].join('\n') + '\n');
      expect(bad.typescript).toMatch(`data.tsv line 3: the ${name.toLowerCase()} (field 4) is "high", not a finite number`);
      expect(bad.python).toEqual(bad.typescript);
    });

  pythonIt('both name the same line of a bad row in a CR-only file', () => {
    const read = bothRead(['q1\tp1\tn1', 'q2\tp2', 'q3\tp3\tn3'].join('\r'));
    expect(read.typescript).toMatch(/^data\.tsv line 2: 2 tab-separated fields/);
    expect(read.python).toMatch(/^data\.tsv line 2: 2 tab-separated fields/);
  });
});
