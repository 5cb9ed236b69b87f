// The page's triplet reader (a picked File, indexed in chunks) in Chromium: a CR-only file is read row by row, a
// line past the cap is refused by number, and a row read back that differs from the one indexed stops the read.
import { blobFile, memoryFile } from '../../src/io/random-access.ts';
import { indexTripletFile } from '../../src/io/triplets/triplet-index.ts';
import { expect } from './expect.ts';

const ROWS = Array.from({ length: 9 }, (_, i) => `query ${i}\tpositive ${i}\tnegative ${i}`);

describe('triplet reader in the page', () => {
  it('reads a CR-only file (an old Mac export) as 9 rows, at any chunk size', async () => {
    const file = new File([ROWS.join('\r') + '\r'], 'mac.tsv');
    for (const chunkBytes of [1, 5, 64, 4096]) {
      const indexed = await indexTripletFile(blobFile(file, file.name), 'tsv', { chunkBytes });
      const rows = await indexed.source.read(ROWS.map((_, i) => i));
      const read = rows.map((t) => [t.query, t.positive, t.negative].join('\t'));
      expect(read.join('\n'), `chunks of ${chunkBytes}: read ${JSON.stringify(read)}`).toBe(ROWS.join('\n'));
    }
  });

  it('refuses a line past the cap, naming it', async () => {
    const file = new File([`q\tp\tn\n${'x'.repeat(3000)}\n`], 'long.tsv');
    const failure = await indexTripletFile(blobFile(file, file.name), 'tsv', { chunkBytes: 256, maxLineBytes: 1000 }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure?.startsWith('long.tsv line 2: the line is longer than 1000 bytes'), `got ${failure}`).toBe(true);
  });

  it('stops when a row read back is not the row indexed', async () => {
    const bytes = new TextEncoder().encode(ROWS.join('\n') + '\n');
    const indexed = await indexTripletFile(memoryFile(bytes, 'changing.tsv'), 'tsv');
    bytes[0] = 'Q'.charCodeAt(0);
    const failure = await indexed.source.read([0]).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure, `got ${failure}`).toContain('changing.tsv line 1: the file changed since training started reading it');
  });
});
