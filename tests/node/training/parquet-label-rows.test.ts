// A Parquet row is numbered as the Parquet reader numbers it (issue 42, item 10): from 0, "(counting from 0)", in the
// teacher-label check of a local file as in its reader's own messages, and for a Hub dataset with the shard it is in.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer, schemaFromColumnData } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../../src/app/platform/platform.ts';
import { readHubTrainingData, readTrainingFile } from '../../../src/app/training/training-data.ts';
import { createHubSource } from '../../../src/io/hub/hub.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { parquetBytes, tripletColumns } from '../../helpers/parquet-fixtures.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';

type WriterSchema = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>;

/** A triplet table whose `label` column is a LIST of DOUBLE per row (as pyarrow writes a column of lists). */
function listLabelTable(labels: number[][]): Uint8Array {
  const texts = tripletColumns(labels.length);
  const schema: WriterSchema = [
    ...schemaFromColumnData({ columnData: texts }),
    { name: 'label', repetition_type: 'OPTIONAL', num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type: 'OPTIONAL', type: 'DOUBLE' },
  ];
  schema[0].num_children = texts.length + 1;
  const columnData = [...texts.map((c) => ({ name: c.name, data: c.data })), { name: 'label', data: labels }];
  return new Uint8Array(parquetWriteBuffer({ columnData, schema, statistics: false }));
}

describe('a Parquet row in a teacher-label error', () => {
  it('is counted from 0 in a local file, as the Parquet reader counts its rows', async () => {
    const bytes = listLabelTable([[1], [2], [3, 4], [5]]);
    await expect(readTrainingFile(memoryFile(bytes, '/data/distill.parquet'))).rejects.toThrow(
      'distill.parquet row 2 (counting from 0): 2 teacher labels, but the first row has 1; every row needs as many',
    );
  });

  describe('of a Hub dataset', () => {
    let root: string;
    let hub: HubServer;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'splade-parquet-rows-'));
      const folder = join(root, 'datasets', 'someone', 'distill', 'data');
      await mkdir(folder, { recursive: true });
      const labelled = parquetBytes([...tripletColumns(3), { name: 'label', data: [1, 2, 3], type: 'DOUBLE' }]);
      await writeFile(join(folder, 'train-00000-of-00002.parquet'), labelled);
      await writeFile(join(folder, 'train-00001-of-00002.parquet'), listLabelTable([[4], [5, 6]]));
      hub = await startHubServer(root);
    });
    afterAll(async () => {
      await hub.close();
      await rm(root, { recursive: true, force: true });
    });

    it('names its shard and its row in that shard, counting from 0', async () => {
      const platform = {
        files: async () => createHubSource({ repo: 'someone/distill', repoType: 'dataset', baseUrl: hub.baseUrl }),
      } as unknown as Platform;
      await expect(
        readHubTrainingData(platform, { repo: 'someone/distill', subset: 'data' }, { baseUrl: hub.baseUrl }),
      ).rejects.toThrow(
        'someone/distill/data/train-00001-of-00002.parquet row 1 (counting from 0): 2 teacher labels, but the first row has 1',
      );
    });
  });
});
