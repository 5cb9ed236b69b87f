// Writes a large triplet TSV (default 1 GiB) by repeating the MS MARCO toy triplets with a row number in each query,
// streamed to disk, for measuring how training reads a file it never holds whole:
//   node scripts/make-big-triplets.mjs <out.tsv> [bytes] [source.tsv]
import { createWriteStream, readFileSync } from 'node:fs';

const [out, bytesArg, sourceArg] = process.argv.slice(2);
if (!out) {
  console.error('usage: node scripts/make-big-triplets.mjs <out.tsv> [bytes, default 1073741824] [source.tsv]');
  process.exit(2);
}
const target = Number(bytesArg ?? 2 ** 30);
const source = sourceArg ?? new URL('../../shared/data/msmarco-toy/triplets.tsv', import.meta.url).pathname;
const lines = readFileSync(source, 'utf8').split('\n').filter((line) => line.split('\t').length === 3);
const stream = createWriteStream(out);
let written = 0;
let row = 0;
while (written < target) {
  const [query, positive, negative] = lines[row % lines.length].split('\t');
  const line = `${query} ${row}\t${positive}\t${negative}\n`;
  written += Buffer.byteLength(line);
  row++;
  if (!stream.write(line)) await new Promise((resolve) => stream.once('drain', resolve));
}
await new Promise((resolve) => stream.end(resolve));
console.log(`${out}: ${row} triplets, ${written} bytes`);
