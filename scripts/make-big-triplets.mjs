// Writes a large triplet TSV (default 1 GiB) by repeating a source file's triplets with a row number in each query,
// streamed to disk, for measuring how training reads a file it never holds whole:
//   node scripts/make-big-triplets.mjs <out.tsv> <source.tsv> [bytes]
// (a source: `splade-lab lesson --write-task <dir>` writes <dir>/triplets.tsv, or any MS MARCO triplets file)
import { createWriteStream, readFileSync } from 'node:fs';

const [out, source, bytesArg] = process.argv.slice(2);
if (!out || !source) {
  console.error('usage: node scripts/make-big-triplets.mjs <out.tsv> <source.tsv> [bytes, default 1073741824]');
  process.exit(2);
}
const target = Number(bytesArg ?? 2 ** 30);
const lines = readFileSync(source, 'utf8')
  .split('\n')
  .filter((line) => line.split('\t').length === 3);
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
