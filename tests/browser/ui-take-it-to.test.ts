// <take-it-to>: a run page lists where its model can go, each with its file and how to make it; the page's own
// downloads (Model, ONNX) ask the runs panel for them, the rest are commands on the unzipped folder naming the right
// format; an inference-free run's rows say how its queries go and which OpenSearch bundle it makes.
import '../../src/ui/experiments/take-it-to.ts';
import type { TakeItTo } from '../../src/ui/experiments/take-it-to.ts';
import type { RunRecord } from '../../src/worker/api.ts';
import { allInside, events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

const run = (inferenceFree: boolean, saved = true) =>
  ({
    id: 'r1',
    k: 8,
    savedModel: saved ? { bytes: 1 } : undefined,
    recipe: inferenceFree ? { inferenceFree: { queryWeights: 'idf', crc32: 1 } } : {},
  }) as unknown as RunRecord;

describe('<take-it-to>', () => {
  it('lists every destination with its format, and hands the page downloads to the runs panel', async () => {
    const el = await mount<TakeItTo>('take-it-to', { run: run(false) });
    const rows = allInside(el, 'tr[data-destination]').map((row) => row.getAttribute('data-destination'));
    expect(JSON.stringify(rows), JSON.stringify(rows)).toBe(
      JSON.stringify([
        'sentence-transformers',
        'onnxruntime',
        'st-onnx',
        'opensearch-ml',
        'elasticsearch',
        'opensearch',
        'vespa',
        'qdrant',
        'anserini',
        'seismic',
      ]),
    );
    const command = (id: string) => inside(el, `tr[data-destination="${id}"] code`).textContent ?? '';
    for (const [id, format] of [
      ['elasticsearch', 'es'],
      ['opensearch', 'opensearch'],
      ['qdrant', 'qdrant'],
      ['anserini', 'anserini'],
      ['seismic', 'seismic'],
      ['vespa', 'vespa'],
    ])
      expect(command(id), `${id}: ${command(id)}`).toContain(`--format ${format}`);
    expect(command('vespa'), command('vespa')).toContain('--output logits');
    expect(command('st-onnx'), command('st-onnx')).toBe('splade-lab export-onnx --st-folder model');
    const asked = events<string>(el, 'export-run');
    inside<HTMLButtonElement>(el, 'button.take-model').click();
    inside<HTMLButtonElement>(el, 'button.take-onnx').click();
    expect(JSON.stringify(asked), JSON.stringify(asked)).toBe(JSON.stringify(['model', 'onnx']));
  });

  it("says how an inference-free run's queries go, and makes OpenSearch's query bundle", async () => {
    const el = await mount<TakeItTo>('take-it-to', { run: run(true) });
    expect(inside(el, 'tr[data-destination="qdrant"]').textContent ?? '', 'query side said').toMatch(/--side query/);
    expect(inside(el, 'tr[data-destination="opensearch-ml"] code').textContent ?? '', 'SPARSE_TOKENIZE').toMatch(/--side query/);
    expect(inside(el, 'tr[data-destination="sentence-transformers"]').textContent ?? '', 'a Router folder').toMatch(/Router/);
  });

  it('offers no download before the model is saved', async () => {
    const el = await mount<TakeItTo>('take-it-to', { run: run(false, false) });
    expect(inside<HTMLButtonElement>(el, 'button.take-model').disabled, 'Model disabled').toBeTruthy();
    expect(inside(el, 'p').textContent ?? '', 'says why').toMatch(/no saved model yet/);
  });
});
