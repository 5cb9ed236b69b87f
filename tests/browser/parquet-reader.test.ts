// The page's Parquet triplet reader in Chromium (a picked File): a table reads as its rows, an INT64 query column is
// refused naming the column and its type, and a page header that declares 10^9 bytes is refused before any allocation.
import { blobFile } from '../../src/io/random-access.ts';
import { readParquetTriplets } from '../../src/io/triplets/triplets-parquet.ts';
import { parquetBytes, tripletColumns, tripletTable, withPageHeader } from '../helpers/parquet-fixtures.ts';
import { expect } from './expect.ts';

const read = (bytes: Uint8Array) => readParquetTriplets(blobFile(new File([bytes.slice()], 'train.parquet'), 'train.parquet'));
const refusal = (bytes: Uint8Array) =>
  read(bytes).then(
    () => 'read',
    (error: Error) => `${error.name}: ${error.message}`,
  );

describe('Parquet reader in the page', () => {
  it('reads a triplet table', async () => {
    const rows = await read(tripletTable(4));
    expect(rows, `read ${JSON.stringify(rows)}`).toHaveLength(4);
    expect(typeof rows[0].query, `read ${JSON.stringify(rows)}`).toBe('string');
  });

  it('refuses an INT64 query column, naming it', async () => {
    const [, positive, negative] = tripletColumns(3);
    const got = await refusal(parquetBytes([{ name: 'query', data: [1n, 2n, 3n], type: 'INT64' }, positive, negative]));
    expect(got.startsWith('ParquetFormatError: train.parquet: column "query": holds INT64 values, not text'), got).toBe(true);
  });

  it('refuses a page that declares 10^9 decompressed bytes', async () => {
    const bytes = withPageHeader(tripletTable(4), 'query', (header) => (header.uncompressed_page_size = 1e9));
    const got = await refusal(bytes);
    expect(got, got).toMatch(/declares 1000000000 decompressed bytes/);
  });
});
