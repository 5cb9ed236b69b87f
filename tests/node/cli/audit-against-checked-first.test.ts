// `audit --against` checks the second model before it reads or encodes with the first (issue 42, item 10): an
// --against without config.json, or one too large for the device, fails before any text is encoded.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliWith } from '../../helpers/cli.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

let empty: string;
let huge: string;

const workspace = tinyCliWorkspace('splade-audit-against-');
beforeAll(async () => {
  empty = join(workspace.root, 'no-config');
  await mkdir(empty);
  // a config whose MLP weight (131072 x 4096, 2 GiB) no binding holds: refused from config.json alone, no weights needed
  huge = join(workspace.root, 'huge');
  await mkdir(huge);
  const config = JSON.parse(await readFile(join(workspace.model, 'config.json'), 'utf8'));
  const wide = { hidden_size: 4096, num_attention_heads: 32, intermediate_size: 131072, num_hidden_layers: 1 };
  await writeFile(join(huge, 'config.json'), JSON.stringify({ ...config, ...wide }));
});

describe('audit --against', () => {
  it.each([
    ['without config.json', () => empty, /config\.json is missing from .*no-config/],
    ['too large for the device', () => huge, /MLP input weight \[131072x4096\] needs 2\.00 GiB, over the device's max/],
  ])('%s fails before anything is encoded', async (_, against, message) => {
    const { code, stderr } = await runCliWith('audit', { model: workspace.model, against: against(), text: 'the cat sat' });
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain('encoded');
  });

  it('a good --against still compares (the check reads no weights of its own)', async () => {
    const { code, stdout } = await runCliWith(
      'audit',
      { model: workspace.model, against: workspace.model + '/', text: 'the cat sat' },
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout).texts).toBe(1);
  });
});
